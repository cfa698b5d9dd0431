"""`safekern.opencl.install()`: every program the process builds is checked, PyOpenCL's library
kernels included (ElementwiseKernel, ReductionKernel, pyopencl.array.take), and the pieces of
PyOpenCL's interface the checked kernels now share (cl.Kernel, set_scalar_arg_dtypes,
enqueue_nd_range_kernel, compile + link_program, from_int_ptr, binaries). PoCL in CI.
"""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(300, method="thread")


@pytest.fixture
def everything():
    """safekern.opencl.install() for one test."""
    skcl.install()
    try:
        yield
    finally:
        skcl.uninstall()


def test_an_elementwise_kernel_reading_past_its_input_is_located(clenv, everything):
    from pyopencl.elementwise import ElementwiseKernel

    q = clenv.queue
    x = cla.to_device(q, np.arange(64, dtype=np.float32))
    y = cla.zeros_like(x)
    shift = ElementwiseKernel(clenv.ctx, "float *x, float *y", "y[i] = x[i + 1]", "shift")
    shift(x, y)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert e.array == "x__base" and e.index == 64 and e.size == 64, str(e)   # (PyOpenCL names it)
    assert "x[i + 1]" in str(e), str(e)           # the user's code string
    assert __file__ in e.filename, str(e)         # where the user made the kernel
    y2 = cla.zeros_like(x)
    ElementwiseKernel(clenv.ctx, "float *x, float *y", "y[i] = 2 * x[i]", "twice")(x, y2)
    np.testing.assert_array_equal(y2.get(), 2 * np.arange(64))


def test_a_reduction_kernel_reading_past_its_input_is_located(clenv, everything):
    pytest.importorskip("mako")             # (PyOpenCL's reductions need it)
    from pyopencl.reduction import ReductionKernel

    q = clenv.queue
    x = cla.to_device(q, np.ones(100, dtype=np.float32))
    total = ReductionKernel(clenv.ctx, np.float32, neutral="0", reduce_expr="a+b",
                            map_expr="x[i + 5]", arguments="__global float *x")
    total(x)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    # (The first failing work-item wins: PoCL's is index 100, NVIDIA's any of 100..104.)
    assert e.array.startswith("x") and 100 <= e.index <= 104 and e.size == 100, str(e)
    # Located at the user's map_expr, which PyOpenCL writes as `#define PCL_READ_AND_MAP(i)
    # (x[i + 5])`, the carets under it; the program is named by the line that built it.
    assert "x[i + 5]" in e.source_line and e.source_line[e.col:e.end_col] == "x[i + 5]", str(e)
    assert __file__ in e.filename, str(e)
    good = ReductionKernel(clenv.ctx, np.float32, neutral="0", reduce_expr="a+b",
                           map_expr="x[i]", arguments="__global float *x")
    assert good(x).get() == 100


def test_take_with_a_bad_index_is_located(clenv, everything):
    q = clenv.queue
    a = cla.to_device(q, np.arange(10, dtype=np.float32))
    good = cla.take(a, cla.to_device(q, np.array([1, 9], dtype=np.int32)))
    np.testing.assert_array_equal(good.get(), [1, 9])
    cla.take(a, cla.to_device(q, np.array([1, 12], dtype=np.int32)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.index, e.size) == ("take", 12, 10), str(e)
    assert __file__ in e.filename, str(e)         # the line that called take()


def test_array_arithmetic_is_checked_and_right(clenv, everything):
    q = clenv.queue
    a = cla.to_device(q, np.arange(1000, dtype=np.float32))
    b = (2 * a + a)[1:]
    np.testing.assert_array_equal(b.get(), 3 * np.arange(1, 1000))
    safekern.sync()


GOOD = "__kernel void twice(__global const float *a, __global float *b) " \
       "{ int i = get_global_id(0); b[i] = 2 * a[i]; }"
BAD = "__kernel void over(__global float *b, int n) { b[get_global_id(0) + n] = 1; }"


def test_cl_kernel_of_a_checked_program_is_checked(clenv):
    prg = skcl.Program(clenv.ctx, BAD, filename="bad.cl").build()
    knl = cl.Kernel(prg, "over")
    assert isinstance(knl, skcl.Kernel) and knl.num_args == 2
    b = cla.zeros(clenv.queue, 8, np.float32)
    knl.set_scalar_arg_dtypes([None, np.int32])
    knl(clenv.queue, (8,), None, b.data, 1)          # PyOpenCL's generated invoker
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.filename, info.value.lineno, info.value.index) == ("bad.cl", 1, 8)
    knl.set_args(b.data, 0)
    cl.enqueue_nd_range_kernel(clenv.queue, knl, (8,), None)
    safekern.sync()
    knl.set_arg(1, np.int32(2))
    cl.enqueue_nd_range_kernel(clenv.queue, knl, (8,), None)
    with pytest.raises(safekern.BoundsError):
        safekern.sync()


def test_argument_indices_stop_at_the_users_arguments(clenv):
    prg = skcl.Program(clenv.ctx, BAD, filename="bad.cl").build()
    for call in (lambda: prg.over.set_arg(2, np.int32(0)),
                 lambda: prg.over.get_arg_info(2, cl.kernel_arg_info.NAME)):
        with pytest.raises(cl.LogicError, match="has 2 arguments; no argument 2") as info:
            call()
        assert info.value.code == cl.status_code.INVALID_ARG_INDEX
    assert prg.over.get_info(cl.kernel_info.NUM_ARGS) == prg.over.num_args == 2


def test_a_coarse_grain_svm_argument_is_sized_and_checked(clenv):
    from pyopencl.characterize import has_coarse_grain_buffer_svm

    if not has_coarse_grain_buffer_svm(clenv.device):
        pytest.skip("no coarse-grain SVM on this device")
    prg = skcl.Program(clenv.ctx, "__kernel void twice(__global float *a, int n) "
                       "{ a[get_global_id(0) + n] *= 2; }", filename="svm.cl").build()
    svm = cl.SVM(cl.csvm_empty(clenv.ctx, (16,), np.float32, alignment=64))
    cl.enqueue_svm_memfill(clenv.queue, svm, np.ones((), np.float32))
    prg.twice(clenv.queue, (16,), None, svm, np.int32(0))
    safekern.sync()
    with svm.map_ro(clenv.queue) as host:
        np.testing.assert_array_equal(host, 2.0)
    prg.twice(clenv.queue, (16,), None, svm, np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.filename, info.value.index, info.value.size) == ("svm.cl", 16, 16)


def test_capture_call_writes_the_users_source(clenv):
    import io

    prg = skcl.Program(clenv.ctx, BAD, filename="bad.cl").build()
    b = cla.zeros(clenv.queue, 8, np.float32)
    out = io.StringIO()
    prg.over.capture_call(out, clenv.queue, (8,), None, b.data, np.int32(0))
    text = out.getvalue()
    assert "b[get_global_id(0) + n] = 1" in text and "__sk_" not in text


def test_handles_and_binaries_of_a_checked_program_stay_checked(clenv):
    prg = skcl.Program(clenv.ctx, BAD, filename="bad.cl").build()
    assert skcl.Program.from_int_ptr(prg.int_ptr) is prg
    assert type(prg.over).from_int_ptr(prg.over.int_ptr) is prg.over
    assert prg.over.get_info(cl.kernel_info.PROGRAM) is prg
    assert prg.get_info(cl.program_info.SOURCE) == BAD
    binaries = prg.get_info(cl.program_info.BINARIES)
    again = skcl.Program(clenv.ctx, clenv.ctx.devices, binaries).build()
    b = cla.zeros(clenv.queue, 8, np.float32)
    again.over(clenv.queue, (8,), None, b.data, np.int32(3))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()


def test_compile_and_link_keep_the_kernels_checks(clenv):
    # The helper's unit defines get_two for the other unit: compiled as written (checked, it
    # would take hidden arguments its caller does not pass), with a warning that says so.
    with pytest.warns(safekern.UncheckedWarning, match="'get_two' for other programs"):
        helper = skcl.Program(clenv.ctx, "float get_two() { return 2.0f; }",
                              filename="two.cl").compile()
    main = skcl.Program(clenv.ctx, "float get_two();\n"
                        "__kernel void fill(__global float *b, int n) "
                        "{ b[get_global_id(0) + n] = get_two(); }", filename="fill.cl").compile()
    linked = cl.link_program(clenv.ctx, [helper, main])
    assert isinstance(linked, skcl.Program)
    b = cla.zeros(clenv.queue, 8, np.float32)
    linked.fill(clenv.queue, (8,), None, b.data, np.int32(0))
    np.testing.assert_array_equal(b.get(), 2.0)
    linked.fill(clenv.queue, (8,), None, b.data, np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.filename, info.value.index) == ("fill.cl", 8)


def test_a_program_safekern_refuses_runs_plain_with_a_warning(clenv, everything, monkeypatch):
    from safekern.backends.opencl import build as backend

    def refuse(*args, **kwargs):
        raise safekern.CompilationError("planted refusal")

    monkeypatch.setattr(backend, "rewrite_program", refuse)
    with pytest.warns(safekern.UncheckedWarning, match="planted refusal"):
        prg = cl.Program(clenv.ctx, GOOD).build()
    a = cla.to_device(clenv.queue, np.ones(4, np.float32))
    b = cla.zeros_like(a)
    prg.twice(clenv.queue, (4,), None, a.data, b.data)
    np.testing.assert_array_equal(b.get(), 2.0)


@pytest.mark.opencl
def test_the_setting_checks_everything_from_the_import_on(tmp_path):
    import os
    import subprocess
    import sys

    from tests.support.opencl_env import find_env

    if find_env("pocl") is None:
        pytest.skip("no PoCL platform")

    script = (
        "import pyopencl as cl, pyopencl.array as cla, numpy as np, safekern\n"
        "import safekern.opencl as skcl\n"
        "assert skcl.installed() and issubclass(cl.Program, skcl.Program)\n"
        "dev = [d for p in cl.get_platforms() if 'Portable' in p.name for d in p.get_devices()]\n"
        "ctx = cl.Context(dev[:1])\n"
        "q = cl.CommandQueue(ctx)\n"
        "a = cla.to_device(q, np.arange(8, dtype=np.float32))\n"
        "cla.take(a, cla.to_device(q, np.array([9], dtype=np.int32)))\n"
        "try:\n"
        "    safekern.sync()\n"
        "except safekern.BoundsError as e:\n"
        "    print('located', e.index, e.kernel)\n")
    env = dict(os.environ, SAFEKERN_OPENCL_ALL="1", SAFEKERN_CACHE=str(tmp_path / "k.cache"))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=240)
    assert "located 9 take" in out.stdout, out.stdout + out.stderr
