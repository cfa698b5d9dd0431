"""Checked CuPy RawKernel / RawModule on a real GPU (marker `gpu`; skipped without CuPy and a
device). Each construct reports kernel, line, array, index, size, thread and block; correct
kernels give plain CuPy's results; a pending failure skips later launches; barrier kernels with
a failing thread finish (a hang fails the test by its timeout); a warm start runs no NVRTC.

    python -m pytest tests/cupy/test_cupy_gpu.py -m gpu -v
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from safekern.backends.cupy import nvrtc  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.support.checks import assert_bounds_error  # noqa: E402
from tests.support.settings import set_safekern


# method="thread": a kernel that never finishes blocks in C, where a signal cannot interrupt
# it; the thread method ends the run with a stack dump instead of hanging.
pytestmark = [pytest.mark.gpu, pytest.mark.timeout(180, method="thread")]
CXX17 = ("--std=c++17",)


def expect_bounds(src, marker, *, kernel, array, index, size, axis=0, thread=None, block=None,
                  filename=None, skipped=0):
    line = K.line(src, marker)
    more = {k: v for k, v in dict(filename=filename, thread=thread, block=block).items()
            if v is not None}
    err = assert_bounds_error(kernel=kernel, lineno=line, source_line=src.split("\n")[line - 1],
                              array=array, axis=axis, index=index, size=size,
                              skipped_launches=skipped, **more)
    safekern.sync()      # the failure was reported once and reset
    return err


def f32(*shape, seed=0):
    return cp.asarray(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# -- each construct: the exception names kernel, line, array, index, size, thread, block ------

def test_gather_subscript():
    n = 256
    src_arr = f32(n)
    out = cp.zeros(n, cp.float32)
    idx = cp.arange(n, dtype=cp.int32)
    idx[70] = n + 5
    k = skcp.RawKernel(K.GATHER, "gather")
    k((n // 64,), (64,), (out, src_arr, idx, np.int32(n)))
    err = expect_bounds(K.GATHER, "gather", kernel="gather", array="src", index=n + 5, size=n,
                        thread=(6, 0, 0), block=(1, 0, 0), filename="gather.cu")
    assert "out[i] = src[idx[i]];" in str(err) and "^" in str(err)


def test_unsigned_index_past_2_63_reads_back_as_written():
    """An unsigned `0 - 1` is index 2**64 - 1, not -1 (issue 29; failures.UNSIGNED)."""
    n = 64
    out = cp.zeros(n, cp.float32)
    k = skcp.RawKernel(K.UNSIGNED_INDEX, "back_one")
    k((1,), (n,), (out, f32(n), np.uint64(0), np.int32(n)))
    err = expect_bounds(K.UNSIGNED_INDEX, "unsigned", kernel="back_one", array="src",
                        index=2**64 - 1, size=n)
    assert "index 18446744073709551615 out of bounds" in str(err)


def test_pointer_arithmetic_deref():
    n = 100
    a = f32(n)
    out = cp.zeros(n, cp.float32)
    k = skcp.RawKernel(K.POINTER_ARITH, "shift")
    k((4,), (32,), (a, out, np.int32(n), np.int32(1)))
    expect_bounds(K.POINTER_ARITH, "deref", kernel="shift", array="(a + i + k) (in a)",
                  index=n, size=n, thread=(3, 0, 0), block=(3, 0, 0))


def test_atomic_address():
    n, bins = 128, 16
    values = cp.arange(n, dtype=cp.int32) % bins
    values[77] = bins + 2
    hist = cp.zeros(bins, cp.uint32)
    k = skcp.RawKernel(K.HISTOGRAM, "histogram")
    k((2,), (64,), (values, hist, np.int32(n)))
    expect_bounds(K.HISTOGRAM, "atomic", kernel="histogram", array="hist", index=bins + 2,
                  size=bins, thread=(13, 0, 0), block=(1, 0, 0))


def test_static_shared_array_second_axis():
    n = 16
    a = f32(n, n)
    out = cp.zeros((n, n), cp.float32)
    k = skcp.RawKernel(K.SHARED_2D, "transpose")
    k((1, 1), (16, 16), (a, out, np.int32(n), np.int32(1)))
    err = expect_bounds(K.SHARED_2D, "shared_axis1", kernel="transpose", array="tile", axis=1,
                        index=16, size=16, block=(0, 0, 0))
    assert err.thread[0] == 15


def test_extern_shared_against_launch_shared_mem():
    threads = 64
    a = f32(threads)
    out = cp.zeros(1, cp.float32)
    k = skcp.RawKernel(K.EXTERN_SHARED, "block_sum")
    k((1,), (threads,), (a, out, np.int32(threads), np.int32(1)), shared_mem=threads * 4)
    expect_bounds(K.EXTERN_SHARED, "extern_shared", kernel="block_sum", array="buf",
                  index=threads, size=threads, thread=(threads - 1, 0, 0), block=(0, 0, 0))
    # More shared memory makes the same launch correct.
    k((1,), (threads,), (a, out, np.int32(threads), np.int32(1)),
      shared_mem=(threads + 1) * 4)
    safekern.sync()


def test_local_array():
    a = f32(1)
    out = cp.zeros(1, cp.float32)
    k = skcp.RawKernel(K.LOCAL_ARRAY, "window")
    k((1,), (32,), (a, out, np.int32(1), np.int32(5)))
    expect_bounds(K.LOCAL_ARRAY, "local", kernel="window", array="acc", index=4, size=4,
                  thread=(0, 0, 0), block=(0, 0, 0))


def test_device_function_gets_the_callers_size():
    n = 64
    src_arr = f32(n)
    dst = cp.zeros(n, cp.float32)
    k = skcp.RawKernel(K.DEVICE_FUNCTION, "copy_via")
    k((1,), (n,), (src_arr, dst, np.int32(n), np.int32(1)))
    expect_bounds(K.DEVICE_FUNCTION, "device_fn", kernel="fetch", array="p", index=n, size=n,
                  thread=(n - 1, 0, 0), block=(0, 0, 0))


def test_template_instantiations_from_name_expressions():
    n = 96
    mod = skcp.RawModule(code=K.TEMPLATES, name_expressions=K.TEMPLATE_NAMES,
                         filename="templates.cu")
    for dtype, expr in ((np.float32, "axpy<float>"), (np.float64, "axpy<double>")):
        x = cp.arange(n, dtype=dtype)
        y = cp.ones(n, dtype=dtype)
        f = mod.get_function(expr)
        f((3,), (32,), (dtype(2), x, y, np.int32(n), np.int32(1)))
        expect_bounds(K.TEMPLATES, "template_kernel", kernel="axpy", array="y", index=n,
                      size=n, thread=(31, 0, 0), block=(2, 0, 0), filename="templates.cu")
        y = cp.ones(n, dtype=dtype)
        f((3,), (32,), (dtype(2), x, y, np.int32(n), np.int32(0)))
        safekern.sync()
        cp.testing.assert_allclose(y, 2 * cp.arange(n, dtype=dtype) + 2)


def test_derived_pointer():
    rows, cols = 8, 10
    a = f32(rows, cols)
    sums = cp.zeros(rows, cp.float32)
    k = skcp.RawKernel(K.DERIVED_POINTER, "row_sums")
    k((1,), (rows,), (a, sums, np.int32(rows), np.int32(cols), np.int32(1)))
    expect_bounds(K.DERIVED_POINTER, "derived", kernel="row_sums", array="row (in a)",
                  index=rows * cols, size=rows * cols, thread=(rows - 1, 0, 0),
                  block=(0, 0, 0))


def test_struct_arrow():
    n = 8
    p = cp.zeros(n * 4, cp.float32)       # Particle is four floats
    k = skcp.RawKernel(K.STRUCTS, "advance")
    k((1,), (n,), (p, np.int32(n), np.int32(2), np.float32(0.1)))
    expect_bounds(K.STRUCTS, "arrow", kernel="advance", array="q (in p)", index=None,
                  size=n, block=(0, 0, 0))


# -- correct kernels give plain CuPy's results ---------------------------------------------

def _both(src, name, grid, block, make_args, shared_mem=0, options=()):
    """Run the same launch with cupy.RawKernel and skcp.RawKernel; the outputs."""
    plain = cp.RawKernel(src, name, options=options)
    checked = skcp.RawKernel(src, name, options=options)
    results = []
    for kernel in (plain, checked):
        args = make_args()
        kernel(grid, block, args, shared_mem=shared_mem)
        cp.cuda.Device().synchronize()
        results.append([cp.asnumpy(a) for a in args if isinstance(a, cp.ndarray)])
    safekern.sync()
    for want, got in zip(*results):
        if np.issubdtype(want.dtype, np.floating):
            # Same compiler options as CuPy's; float atomics may add in another order.
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, want)
    return results[1]


def test_correct_kernels_match_plain_cupy():
    n = 256
    base = f32(n, seed=1)
    _both(K.GATHER, "gather", (4,), (64,), lambda: (
        cp.zeros(n, cp.float32), base, cp.arange(n, dtype=cp.int32)[::-1].copy(), np.int32(n)))
    _both(K.POINTER_ARITH, "shift", (4,), (64,), lambda: (
        base, cp.zeros(n, cp.float32), np.int32(n - 3), np.int32(3)))
    vals = cp.asarray(np.random.default_rng(2).integers(0, 16, n).astype(np.int32))
    _both(K.HISTOGRAM, "histogram", (4,), (64,), lambda: (vals, cp.zeros(16, cp.uint32),
                                                           np.int32(n)))
    m = f32(32, 32, seed=3)
    _both(K.SHARED_2D, "transpose", (2, 2), (16, 16), lambda: (
        m, cp.zeros((32, 32), cp.float32), np.int32(32), np.int32(0)))
    _both(K.EXTERN_SHARED, "block_sum", (4,), (64,), lambda: (
        base, cp.zeros(4, cp.float32), np.int32(n), np.int32(0)), shared_mem=64 * 4)
    _both(K.LOCAL_ARRAY, "window", (4,), (64,), lambda: (
        base, cp.zeros(n, cp.float32), np.int32(n), np.int32(4)))
    _both(K.DEVICE_FUNCTION, "copy_via", (4,), (64,), lambda: (
        base, cp.zeros(n, cp.float32), np.int32(n - 2), np.int32(2)))
    _both(K.DERIVED_POINTER, "row_sums", (1,), (16,), lambda: (
        base, cp.zeros(16, cp.float32), np.int32(16), np.int32(16), np.int32(0)))
    _both(K.STRUCTS, "advance", (1,), (64,), lambda: (
        base.copy(), np.int32(64), np.int32(1), np.float32(0.5)))


def test_barrier_kernels_match_plain_cupy():
    n = 1024
    data = f32(n, seed=4)
    _both(K.BARRIER_LOOP, "smooth", (4,), (256,), lambda: (
        data, cp.zeros(n, cp.float32), np.int32(n), np.int32(4), np.int32(-1)))
    N = 64
    A, B = f32(N, N, seed=5), f32(N, N, seed=6)
    out = _both(K.MATMUL, "matmul", (N // 16, N // 16), (16, 16), lambda: (
        A, B, cp.zeros((N, N), cp.float32), np.int32(N), np.int32(N)))
    np.testing.assert_allclose(out[2], cp.asnumpy(A @ B), rtol=1e-4, atol=1e-4)
    _both(K.REDUCTION, "reduce", (4,), (256,), lambda: (
        data, cp.zeros(4, cp.float32), np.int32(n), np.int32(-1)), shared_mem=256 * 4)
    flags = cp.asarray((np.arange(n) % 3 == 0).astype(np.int32))
    _both(K.SYNC_FORMS, "vote", (4,), (256,), lambda: (
        flags, cp.zeros(12, cp.int32), np.int32(n), np.int32(-1)))
    _both(K.COOPERATIVE, "cg_scan", (4,), (256,), lambda: (
        data, cp.zeros(n, cp.float32), np.int32(n), np.int32(-1)), options=CXX17)
    _both(K.WARP_SHUFFLE, "warp_sum", (4,), (256,), lambda: (
        data, cp.zeros(4, cp.float32), np.int32(n), np.int32(-1)))


# -- barrier kernels with a failing thread finish -------------------------------------------

def test_barrier_in_loop_with_failing_thread():
    n = 1024
    k = skcp.RawKernel(K.BARRIER_LOOP, "smooth")
    k((4,), (256,), (f32(n), cp.zeros(n, cp.float32), np.int32(n), np.int32(4), np.int32(5)))
    err = expect_bounds(K.BARRIER_LOOP, "loop_fail", kernel="smooth", array="in",
                        index=n + 5, size=n, thread=(5, 0, 0))
    assert 0 <= err.block[0] < 4


def test_tiled_matmul_with_failing_thread():
    N = 64
    A = f32(N * N - 1)                  # one element short: only the very last load fails
    B = f32(N, N)
    C = cp.zeros((N, N), cp.float32)
    k = skcp.RawKernel(K.MATMUL, "matmul")
    k((N // 16, N // 16), (16, 16), (A, B, C, np.int32(N), np.int32(N)))
    err = expect_bounds(K.MATMUL, "matmul", kernel="matmul", array="A", index=N * N - 1,
                        size=N * N - 1, thread=(15, 15, 0))
    # Row 63 is loaded by the last row of blocks; any of them may fail first.
    assert err.block[1] == N // 16 - 1 and err.block[2] == 0


def test_tree_reduction_with_failing_thread():
    n = 1024
    k = skcp.RawKernel(K.REDUCTION, "reduce")
    k((4,), (256,), (f32(n), cp.zeros(4, cp.float32), np.int32(n), np.int32(3)),
      shared_mem=256 * 4)
    expect_bounds(K.REDUCTION, "reduce_fail", kernel="reduce", array="in", index=n + 1000,
                  size=n, thread=(3, 0, 0))


def test_syncthreads_count_and_or_with_failing_thread():
    n = 1024
    flags = cp.ones(n, cp.int32)
    counts = cp.zeros(12, cp.int32)
    k = skcp.RawKernel(K.SYNC_FORMS, "vote")
    k((4,), (256,), (flags, counts, np.int32(n), np.int32(2)))
    expect_bounds(K.SYNC_FORMS, "vote_fail", kernel="vote", array="flags", index=n + 5,
                  size=n, thread=(2, 0, 0))


def test_cooperative_groups_block_sync_with_failing_thread():
    n = 1024
    k = skcp.RawKernel(K.COOPERATIVE, "cg_scan", options=CXX17)
    k((4,), (256,), (f32(n), cp.zeros(n, cp.float32), np.int32(n), np.int32(3)))
    expect_bounds(K.COOPERATIVE, "cg_fail", kernel="cg_scan", array="in", index=n + 77,
                  size=n, thread=(3, 0, 0))


def test_warp_shuffle_with_failing_lane():
    n = 1024
    k = skcp.RawKernel(K.WARP_SHUFFLE, "warp_sum")
    k((4,), (256,), (f32(n), cp.zeros(4, cp.float32), np.int32(n), np.int32(5)))
    expect_bounds(K.WARP_SHUFFLE, "warp_fail", kernel="warp_sum", array="in", index=n + 3,
                  size=n, thread=(5, 0, 0), block=(0, 0, 0))


# -- skip after failure, recovery -----------------------------------------------------------

def test_pending_failure_skips_later_launches_and_recovers():
    n = 128
    out = cp.zeros(n, cp.float32)
    idx = cp.full(n, n + 1, dtype=cp.int32)
    gather = skcp.RawKernel(K.GATHER, "gather")
    fill = skcp.RawKernel(K.SKIP_TARGET, "fill")
    target = cp.zeros(n, cp.float32)
    gather((2,), (64,), (out, f32(n), idx, np.int32(n)))
    fill((2,), (64,), (target, np.float32(7.0), np.int32(n)))
    fill((2,), (64,), (target, np.float32(8.0), np.int32(n)))
    err = expect_bounds(K.GATHER, "gather", kernel="gather", array="src", index=n + 1,
                        size=n, skipped=2)
    assert "2 later checked launches skipped" in str(err)
    assert float(target.max()) == 0.0     # both fills were skipped
    # Recovery: the same kernels work normally after sync() reported the failure.
    fill((2,), (64,), (target, np.float32(9.0), np.int32(n)))
    gather((2,), (64,), (out, target, cp.arange(n, dtype=cp.int32), np.int32(n)))
    safekern.sync()
    assert float(out.min()) == float(out.max()) == 9.0


def test_sync_every_launch_mode(monkeypatch):
    set_safekern(monkeypatch, SYNC_EVERY_LAUNCH="1")
    n = 64
    idx = cp.full(n, n, dtype=cp.int32)
    gather = skcp.RawKernel(K.GATHER, "gather")
    with pytest.raises(safekern.BoundsError):
        gather((1,), (64,), (cp.zeros(n, cp.float32), f32(n), idx, np.int32(n)))


# -- arguments ------------------------------------------------------------------------------

def test_a_bare_array_as_arguments_as_cupy():
    """cupyx's Delaunay spelling, kernel((1,), (1,), (consts)): CuPy passes the array's rows,
    the first the kernel's pointer; checked against the whole array."""
    from tests.cupy.test_launch_args import INIT

    consts = cp.zeros(18, cp.float64)
    k = skcp.RawKernel(INIT, "init")
    k((1,), (1,), (consts))
    safekern.sync()
    cp.testing.assert_allclose(consts, 0.5 * cp.arange(18))
    with pytest.raises(safekern.BoundsError) as info:
        k((1,), (1,), (consts[8:]))
        safekern.sync()
    assert (info.value.array, info.value.index, info.value.size) == ("consts", 10, 10)


def test_pointer_parameter_without_a_size_runs_unchecked():
    n = 64
    out, table = cp.zeros(n, cp.float32), f32(n)
    k = skcp.RawKernel(K.UNCHECKED_PARAM, "scale")
    with pytest.warns(safekern.UncheckedWarning, match=r"argument 1 \('table'\) of kernel "
                                                        r"'scale'.*raw address"):
        k((1,), (n,), (out, table.data.ptr, np.int32(n)))      # as CuPy: runs, unchecked
    safekern.sync()
    cp.testing.assert_allclose(out, 2 * table)
    out.fill(0)
    k((1,), (n,), (out, skcp.unchecked(table.data.ptr), np.int32(n)))
    safekern.sync()
    cp.testing.assert_allclose(out, 2 * table)
    report = k.check_report()
    (entry,) = [e for e in report if e.status == "unchecked"]
    assert entry.array == "table" and "skcp.unchecked" in entry.reason
    with pytest.raises(TypeError, match="takes 3 arguments"):
        k((1,), (n,), (out, table))
    with pytest.raises(TypeError, match="NumPy"):
        k((1,), (n,), (out, np.ones(n, np.float32), np.int32(n)))


def test_views_and_memory_pointers_are_sized():
    n = 128
    base = f32(n)
    out = cp.zeros(n, cp.float32)
    k = skcp.RawKernel(K.GATHER, "gather")
    view = base[64:]                                  # 64 elements from the view's start
    k((2,), (64,), (out, view, cp.full(n, 64, dtype=cp.int32), np.int32(n)))
    expect_bounds(K.GATHER, "gather", kernel="gather", array="src", index=64, size=64)
    k((1,), (64,), (out, base.data, cp.arange(n, dtype=cp.int32), np.int32(64)))
    safekern.sync()


# -- the CuPy interface -------------------------------------------------------------------

def test_module_interface_attributes_streams_and_globals():
    src = K.GATHER + '\n__constant__ float scale[4];\n'
    mod = skcp.RawModule(code=src)
    k = mod.get_function("gather")
    assert k.num_regs > 0 and k.max_threads_per_block > 0
    attrs = k.attributes
    assert set(attrs) >= {"num_regs", "max_dynamic_shared_size_bytes", "binary_version"}
    assert attrs["binary_version"] == int(cp.cuda.Device().compute_capability)
    k.max_dynamic_shared_size_bytes = 64 * 1024
    assert k.max_dynamic_shared_size_bytes == 64 * 1024
    ptr = mod.get_global("scale")
    cp.ndarray((4,), cp.float32, ptr)[...] = 1.0
    stream = cp.cuda.Stream(non_blocking=True)
    n = 64
    out = cp.zeros(n, cp.float32)
    with stream:
        k((1,), (n,), (out, f32(n), cp.arange(n, dtype=cp.int32), np.int32(n)), stream=stream)
    safekern.sync(stream)
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND") as info:
        mod.get_function("nope")                    # what cupy.RawModule raises
    assert any("no kernel 'nope'" in note for note in info.value.__notes__)


def test_cpp_kernels_by_plain_and_mangled_name():
    src = ("namespace ops {\n__global__ void inc(float* a, int n) {\n"
           "    int i = threadIdx.x; if (i < n) a[i] += 1.0f;\n}\n}\n")
    plain_mod = cp.RawModule(code=src, name_expressions=["ops::inc"])
    mangled = plain_mod.module.mapping["ops::inc"] if hasattr(plain_mod.module, "mapping") \
        else "_ZN3ops3incEPfi"
    mod = skcp.RawModule(code=src)
    a = cp.zeros(32, cp.float32)
    for name in ("ops::inc", "inc", mangled):
        mod.get_function(name)((1,), (32,), (a, np.int32(32)))
    safekern.sync()
    assert float(a.min()) == 3.0


def test_checks_off_runs_the_users_kernel(monkeypatch):
    set_safekern(monkeypatch, CHECKS="0")
    n = 64
    out = cp.zeros(n, cp.float32)
    k = skcp.RawKernel(K.GATHER, "gather")
    k((1,), (n,), (out, f32(n), cp.arange(n, dtype=cp.int32), np.int32(n)))
    safekern.sync()
    assert "__sk_" not in k.rewritten_source
    assert str(k.check_report()).endswith("no access is checked")


# -- warm start: the cache serves the cubin, NVRTC does not run ------------------------------

def test_warm_start_in_process_runs_no_nvrtc():
    from safekern.backends.cupy import api as backend

    n = 64
    args = lambda: (cp.zeros(n, cp.float32), f32(n), cp.arange(n, dtype=cp.int32),  # noqa
                    np.int32(n))
    # The process-wide module memo may hold this source from an earlier test, compiled into
    # that test's cache file: forget it so the first launch stores into this test's file.
    backend._MODULES.clear()
    skcp.RawKernel(K.GATHER, "gather")((1,), (n,), args())
    safekern.sync()
    before = nvrtc.compile_calls()
    backend._MODULES.clear()      # forget the loaded module: it comes from the cache file
    again = skcp.RawKernel(K.GATHER, "gather")
    out, src_arr, idx, nn = args()
    again((1,), (n,), (out, src_arr, idx, nn))
    safekern.sync()
    assert nvrtc.compile_calls() == before
    cp.testing.assert_array_equal(out, src_arr)


_WARM_SCRIPT = textwrap.dedent("""
    import json, numpy as np, cupy as cp, safekern, safekern.cupy as skcp
    from safekern.backends.cupy import nvrtc
    from tests.cupy import cuda_c_kernels as K
    n = 256
    out = cp.zeros(n, cp.float32)
    src = cp.arange(n, dtype=cp.float32)
    idx = cp.arange(n, dtype=cp.int32)
    idx[9] = n + 4
    mod = skcp.RawModule(code=K.TEMPLATES + K.GATHER, name_expressions=K.TEMPLATE_NAMES)
    mod.get_function("gather")((4,), (64,), (out, src, idx, np.int32(n)))
    try:
        safekern.sync()
        error = None
    except safekern.BoundsError as err:
        error = [err.kernel, err.lineno, err.array, err.index, err.size, list(err.thread)]
    print(json.dumps({"nvrtc_calls": nvrtc.compile_calls(), "error": error}))
""")


def test_warm_start_in_a_new_process_runs_no_nvrtc(tmp_path):
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "warm.cache"))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _WARM_SCRIPT], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    # Cold: the checked module and the launch variant its launch ran (its predicates held),
    # both compiled by CuPy's compiler (one build path: CuPy's cache, not safekern's NVRTC).
    assert cold["nvrtc_calls"] == 0
    assert warm["nvrtc_calls"] == 0
    # The failure codes compiled into the cached cubin still name the right site.
    line = K.TEMPLATES.count("\n") + K.line(K.GATHER, "gather")
    assert warm["error"] == cold["error"] == ["gather", line, "src", 260, 256, [9, 0, 0]]


@pytest.mark.parametrize("name", sorted(K.REJECTED))
def test_unsafe_barriers_are_rejected_before_launch(name):
    src, marker, words = K.REJECTED[name]
    k = skcp.RawKernel(src, src.split("void ")[1].split("(")[0], options=CXX17)
    with pytest.raises(safekern.UnsupportedError) as info:
        k((1,), (32,), (cp.zeros(32, cp.float32), np.int32(32)))
    assert info.value.lineno == K.line(src, marker) and words in str(info.value)
