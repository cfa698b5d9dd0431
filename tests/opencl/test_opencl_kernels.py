"""Checked OpenCL kernels run for real: PoCL in CI (marker opencl), NVIDIA on the H200 (gpu).

Each construct fails in exactly one work-item, so the reported work-item and group are exact.
"""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from tests.support.checks import assert_bounds_error
from tests.support.settings import set_safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(120, method="thread")   # a hang fails, never blocks CI

N = 64          # work-items
LSZ = 16        # work-group size: the last work-item is thread (15,0,0) block (3,0,0)
LAST = ((LSZ - 1, 0, 0), (N // LSZ - 1, 0, 0))


def build(env, source, filename="k.cl", options=None):
    return skcl.Program(env.ctx, source, filename=filename).build(options=options)


def f32(env, values):
    return cla.to_device(env.queue, np.asarray(values, dtype=np.float32))


def expect_bounds(*, kernel, lineno, array, index, size, thread_block=LAST, axis=0,
                  filename="k.cl"):
    """The failure `safekern.sync()` raises: the shared helper with this file's defaults (the
    last work-item of the launch; thread_block None: any)."""
    where = {} if thread_block is None else dict(thread=thread_block[0], block=thread_block[1])
    e = assert_bounds_error(kernel=kernel, filename=filename, lineno=lineno, array=array,
                            index=index, size=size, axis=axis, **where)
    assert e.source_line is not None and e.source_line.strip()
    return e


# -- each construct -------------------------------------------------------------------------

def test_subscript_write_out_of_bounds(clenv):
    src = """__kernel void shift(__global const float *a, __global float *out, int off) {
    int i = get_global_id(0);
    out[i + off] = a[i];
}"""
    prg = build(clenv, src)
    a, out = f32(clenv, np.arange(N)), cla.zeros(clenv.queue, N, np.float32)
    prg.shift(clenv.queue, (N,), (LSZ,), a, out, np.int32(1))
    e = expect_bounds(kernel="shift", lineno=3, array="out", index=N, size=N)
    assert "index 64 out of bounds for axis 0 with size 64 (array 'out')" in str(e)
    assert "in kernel 'shift' at k.cl:3, thread (15, 0, 0) block (3, 0, 0)" in str(e)
    assert "out[i + off] = a[i];" in str(e) and "^^^^^^^" in str(e)
    assert isinstance(e, IndexError)


def test_negative_index(clenv):
    src = """__kernel void back(__global const float *a, __global float *out) {
    int i = get_global_id(0);
    out[i] = a[i - 1];
}"""
    prg = build(clenv, src)
    prg.back(clenv.queue, (N,), (LSZ,), f32(clenv, np.arange(N)),
             cla.zeros(clenv.queue, N, np.float32))
    expect_bounds(kernel="back", lineno=3, array="a", index=-1, size=N,
                  thread_block=((0, 0, 0), (0, 0, 0)))


def test_pointer_arithmetic_dereference(clenv):
    src = """__kernel void deref(__global const float *a, __global float *out) {
    int i = get_global_id(0);
    out[i] = *(a + i + 1);
}"""
    prg = build(clenv, src)
    prg.deref(clenv.queue, (N,), (LSZ,), cla.to_device(clenv.queue, np.ones(N, np.float32)),
              cla.zeros(clenv.queue, N, np.float32))
    # (a + i) + 1: a derived pointer, checked against a's buffer.
    expect_bounds(kernel="deref", lineno=3, array="a", index=N, size=N)


def test_plain_dereference_offset(clenv):
    src = """__kernel void deref2(__global const float *a, __global float *out) {
    int i = get_global_id(0);
    out[i] = *(a + 2 * i);
}"""
    prg = build(clenv, src)
    prg.deref2(clenv.queue, (N,), (LSZ,), f32(clenv, np.arange(N + N // 2)),
               cla.zeros(clenv.queue, N, np.float32))
    # 2*i >= 96 for i >= 48: the first failing work-item is not unique, only the values are.
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.size) == (3, "a", 96)
    assert e.index >= 96 and e.index % 2 == 0
    assert e.thread[0] + LSZ * e.block[0] == e.index // 2


def test_atomic_on_address_of_element(clenv):
    src = """__kernel void hist(__global const int *bins, __global int *counts, int nbins) {
    int i = get_global_id(0);
    atomic_add(&counts[bins[i]], 1);
}"""
    prg = build(clenv, src)
    bins = np.arange(N, dtype=np.int32) % 8
    bins[-1] = 8
    counts = cla.zeros(clenv.queue, 8, np.int32)
    prg.hist(clenv.queue, (N,), (LSZ,), cla.to_device(clenv.queue, bins), counts, np.int32(8))
    expect_bounds(kernel="hist", lineno=3, array="counts", index=8, size=8)


def test_vload_and_vstore(clenv):
    src = """__kernel void v4(__global const float *a, __global float *out) {
    int i = get_global_id(0);
    float4 x = vload4(i, a);
    vstore4(x * 2.0f, i, out);
}"""
    prg = build(clenv, src)
    a = f32(clenv, np.arange(4 * N))
    out = cla.zeros(clenv.queue, 4 * N, np.float32)
    prg.v4(clenv.queue, (N,), (LSZ,), a, out)
    safekern.sync()
    np.testing.assert_allclose(out.get(), 2 * np.arange(4 * N))
    short = f32(clenv, np.arange(4 * N - 1))       # the last float4 is incomplete
    prg.v4(clenv.queue, (N,), (LSZ,), short, out)
    expect_bounds(kernel="v4", lineno=3, array="a", index=N - 1, size=N - 1)
    small_out = cla.zeros(clenv.queue, 4 * N - 4, np.float32)
    prg.v4(clenv.queue, (N,), (LSZ,), a, small_out)
    expect_bounds(kernel="v4", lineno=4, array="out", index=N - 1, size=N - 1)


def test_float4_pointer_counts_float4s(clenv):
    src = """__kernel void scale4(__global float4 *v, float s) {
    int i = get_global_id(0);
    v[i] *= s;
}"""
    prg = build(clenv, src)
    buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, size=4 * 4 * (N - 1))  # N-1 float4s
    prg.scale4(clenv.queue, (N,), (LSZ,), buf, np.float32(2))
    expect_bounds(kernel="scale4", lineno=3, array="v", index=N - 1, size=N - 1)


def test_derived_pointer(clenv):
    src = """__kernel void rows(__global const float *a, __global float *out, int ncols) {
    int r = get_global_id(0);
    __global const float *row = a + r * ncols;
    float s = 0.0f;
    for (int j = 0; j < ncols; j++)
        s += row[j];
    out[r] = s;
}"""
    prg = build(clenv, src)
    ncols = 4
    mat = np.arange(N * ncols, dtype=np.float32)
    out = cla.zeros(clenv.queue, N, np.float32)
    prg.rows(clenv.queue, (N,), (LSZ,), f32(clenv, mat), out, np.int32(ncols))
    safekern.sync()
    np.testing.assert_allclose(out.get(), mat.reshape(N, ncols).sum(axis=1))
    prg.rows(clenv.queue, (N,), (LSZ,), f32(clenv, mat[:-1]), out, np.int32(ncols))
    # Row 63's last element is element 255 of a 255-element buffer.
    expect_bounds(kernel="rows", lineno=6, array="a", index=N * ncols - 1,
                  size=N * ncols - 1)


def test_local_array_2d(clenv):
    src = """__kernel void tile(__global float *out) {
    __local float s[4][16];
    int lid = get_local_id(0);
    s[lid / 4][lid % 16] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = s[lid / 4][0];
}"""
    prg = build(clenv, src)
    out = cla.zeros(clenv.queue, N, np.float32)
    prg.tile(clenv.queue, (N,), (LSZ,), out)
    safekern.sync()
    prg.tile(clenv.queue, (N,), (2 * LSZ,), out)
    # lid / 4 == 4 first for lid 16: one failing item per group of 32 (first wins).
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.axis, e.size) == (4, "s", 0, 4)
    assert 4 <= e.index <= 7 and 16 <= e.thread[0] < 32


def test_local_array_1d_and_private_arrays(clenv):
    src = """__kernel void priv(__global const int *idx, __global float *out) {
    __local float sh[16];
    float p[4];
    float q[2][3];
    int i = get_global_id(0);
    int lid = get_local_id(0);
    sh[lid] = lid;
    for (int k = 0; k < 4; k++) p[k] = k;
    q[1][2] = 5.0f;
    int j = idx[i];
    out[i] = p[j] + sh[lid] + q[j % 2][j];
}"""
    prg = build(clenv, src)
    idx = np.zeros(N, np.int32)
    idx[-1] = 4
    out = cla.zeros(clenv.queue, N, np.float32)
    prg.priv(clenv.queue, (N,), (LSZ,), cla.to_device(clenv.queue, idx), out)
    expect_bounds(kernel="priv", lineno=11, array="p", index=4, size=4)
    idx[-1] = 3
    prg.priv(clenv.queue, (N,), (LSZ,), cla.to_device(clenv.queue, idx), out)
    expect_bounds(kernel="priv", lineno=11, array="q", index=3, size=3, axis=1)
    report = prg.check_report()
    assert any(e.text == "p[k]" and e.status == "safe" for e in report)
    assert any(e.text == "q[1][2]" and e.status == "safe" for e in report)


def test_helper_function(clenv):
    src = """float get(__global const float *p, int i) {
    return p[i];
}
void put(__global float *p, int i, float v) { p[i] = v; }
__kernel void use_helpers(__global const float *a, __global float *out, int off) {
    int i = get_global_id(0);
    put(out, i, get(a + off, i));
}"""
    prg = build(clenv, src)
    out = cla.zeros(clenv.queue, N, np.float32)
    prg.use_helpers(clenv.queue, (N,), (LSZ,), f32(clenv, np.arange(N)), out, np.int32(0))
    safekern.sync()
    np.testing.assert_allclose(out.get(), np.arange(N))
    prg.use_helpers(clenv.queue, (N,), (LSZ,), f32(clenv, np.arange(N)), out, np.int32(1))
    # In the helper, p is a + 1: element 64 of a (size 64) is read at p[63].
    e = expect_bounds(kernel="get", lineno=2, array="p", index=N, size=N)
    assert "return p[i];" in str(e)


def test_local_memory_parameter_and_constant_buffer(clenv):
    src = """__kernel void lm(__constant float *c, __local float *tmp, __global float *out) {
    int lid = get_local_id(0);
    tmp[lid] = c[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[LSZ - 1 - lid];
}""".replace("LSZ", str(LSZ))
    prg = build(clenv, src)
    c = cl.Buffer(clenv.ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                  hostbuf=np.arange(LSZ, dtype=np.float32))
    out = cla.zeros(clenv.queue, N, np.float32)
    prg.lm(clenv.queue, (N,), (LSZ,), c, cl.LocalMemory(4 * LSZ), out)
    safekern.sync()
    np.testing.assert_allclose(out.get(), np.tile(np.arange(LSZ)[::-1], N // LSZ))
    prg.lm(clenv.queue, (N,), (LSZ,), c, cl.LocalMemory(4 * (LSZ - 1)), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.index, info.value.size) == ("tmp", LSZ - 1, LSZ - 1)


def test_default_filename_and_vector_component(clenv):
    src = """__kernel void comp(__global const int *k, __global float *out) {
    float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    out[get_global_id(0)] = v[k[get_global_id(0)]];
}"""
    prg = skcl.Program(clenv.ctx, src).build()
    ks = np.zeros(N, np.int32)
    ks[-1] = 4
    prg.comp(clenv.queue, (N,), (LSZ,), cla.to_device(clenv.queue, ks),
             cla.zeros(clenv.queue, N, np.float32))
    e = expect_bounds(kernel="comp", lineno=3, array="v", index=4, size=4,
                      filename="<opencl source>")
    assert "at <opencl source>:3" in str(e)


# -- correct kernels, launches, recovery ------------------------------------------------------

STENCIL = """#define R 1
inline float weight(int d) { return d == 0 ? 0.5f : 0.25f; }
__kernel void stencil(__global const float *a, __global float *out, int n) {
    int i = get_global_id(0);
    __local float tile[64 + 2 * R];
    int lid = get_local_id(0);
    if (i >= n) return;
    tile[lid + R] = a[i];
    if (lid == 0) tile[0] = i > 0 ? a[i - 1] : 0.0f;
    if (lid == get_local_size(0) - 1) tile[lid + 2 * R] = i + 1 < n ? a[i + 1] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int d = -R; d <= R; d++)
        acc += weight(d) * tile[lid + R + d];
    out[i] = acc;
}
"""


def test_correct_kernel_gives_plain_pyopencl_results(clenv):
    n = 256
    a = np.random.default_rng(0).random(n).astype(np.float32)
    ours = build(clenv, STENCIL, "stencil.cl")
    plain = cl.Program(clenv.ctx, STENCIL).build()
    out1 = cla.zeros(clenv.queue, n, np.float32)
    out2 = cla.zeros(clenv.queue, n, np.float32)
    ours.stencil(clenv.queue, (n,), (64,), f32(clenv, a), out1, np.int32(n))
    plain.stencil(clenv.queue, (n,), (64,), f32(clenv, a).data, out2.data, np.int32(n))
    safekern.sync()
    np.testing.assert_array_equal(out1.get(), out2.get())
    assert ours.kernel_names == "stencil"
    assert [k.function_name for k in ours.all_kernels()] == ["stencil"]
    assert ours.stencil.num_args == 3


def test_skip_after_failure_and_recovery(clenv):
    src = """__kernel void bad(__global float *x) { x[get_global_id(0) + 1] = 1.0f; }
__kernel void fill(__global float *x, float v) { x[get_global_id(0)] = v; }"""
    prg = build(clenv, src)
    x = cla.zeros(clenv.queue, N, np.float32)
    y = cla.zeros(clenv.queue, N, np.float32)
    prg.bad(clenv.queue, (N,), (LSZ,), x)
    for _ in range(3):
        prg.fill(clenv.queue, (N,), (LSZ,), y, np.float32(7))
    e = expect_bounds(kernel="bad", lineno=1, array="x", index=N, size=N)
    assert e.skipped_launches == 3
    assert "3 later checked launches skipped" in str(e)
    np.testing.assert_array_equal(y.get(), 0)       # the skipped launches did nothing
    # Recovery: the failure is reset; later launches run and sync() is quiet.
    prg.fill(clenv.queue, (N,), (LSZ,), y, np.float32(7))
    safekern.sync()
    np.testing.assert_array_equal(y.get(), 7)
    safekern.sync(clenv.queue)


def test_sync_with_a_queue_target(clenv):
    src = "__kernel void bad(__global float *x) { x[get_global_id(0) + 1] = 1.0f; }"
    prg = build(clenv, src)
    prg.bad(clenv.queue, (N,), (LSZ,), cla.zeros(clenv.queue, N, np.float32))
    with pytest.raises(safekern.BoundsError):
        safekern.sync(clenv.queue)
    safekern.sync()


def test_set_args_and_enqueue(clenv):
    src = "__kernel void add(__global float *x, float v) { x[get_global_id(0)] += v; }"
    prg = build(clenv, src)
    knl = prg.add
    x = cla.zeros(clenv.queue, N, np.float32)
    knl.set_args(x, np.float32(2))
    skcl.enqueue_nd_range_kernel(clenv.queue, knl, (N,), (LSZ,))
    safekern.sync()
    np.testing.assert_array_equal(x.get(), 2)
    skcl.enqueue_nd_range_kernel(clenv.queue, knl, (N + LSZ,), (LSZ,))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.size == N and N <= info.value.index < N + LSZ


def test_scalar_arg_dtypes_and_python_scalars(clenv):
    src = "__kernel void add(__global float *x, float v, int n) " \
          "{ int i = get_global_id(0); if (i < n) x[i] += v; }"
    prg = build(clenv, src)
    knl = prg.add
    knl.set_scalar_arg_dtypes([None, np.float32, np.int32])
    x = cla.zeros(clenv.queue, N, np.float32)
    knl(clenv.queue, (N,), (LSZ,), x, 3.0, N)
    safekern.sync()
    np.testing.assert_array_equal(x.get(), 3)


def test_wrong_argument_count_is_a_clear_error(clenv):
    prg = build(clenv, "__kernel void k(__global float *x, int n) { x[0] = n; }")
    with pytest.raises(TypeError, match=r"takes 2 arguments \(x, n\), 1 given"):
        prg.k(clenv.queue, (1,), None, cla.zeros(clenv.queue, 1, np.float32))


def test_sync_every_launch(clenv, monkeypatch):

    set_safekern(monkeypatch, SYNC_EVERY_LAUNCH="1")
    prg = build(clenv, "__kernel void bad(__global float *x) { x[get_global_id(0) + 1] = 1; }")
    with pytest.raises(safekern.BoundsError):
        prg.bad(clenv.queue, (N,), (LSZ,), cla.zeros(clenv.queue, N, np.float32))


def test_32bit_atomics_path(clenv, monkeypatch):
    from safekern.backends.opencl import build as backend

    monkeypatch.setattr(backend, "device_caps", lambda devices: (False, True))
    prg = build(clenv, "__kernel void bad(__global float *x) { x[get_global_id(0) + 1] = 1; }")
    assert "atom_cmpxchg" not in prg.checked_source
    prg.bad(clenv.queue, (N,), (LSZ,), cla.zeros(clenv.queue, N, np.float32))
    expect_bounds(kernel="bad", lineno=1, array="x", index=N, size=N)
