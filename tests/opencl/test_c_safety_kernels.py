"""Asserts and integer division by zero in OpenCL C and CUDA C kernels, run for real: PoCL in
CI (marker `opencl`), NVIDIA's OpenCL and CuPy on a GPU (marker `gpu`).

Each case of tests/opencl/c_safety_kernels.py fails in exactly one work-item; the exception comes at
the library's own sync point (`out.get()`), with its type, message, line, kernel, thread and
block; the next launch with good inputs computes the right result (for CUDA: the context
survived, which CUDA's own `assert` does not allow).
"""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from tests.opencl import c_safety_kernels as K
from tests.support.settings import set_safekern

pytestmark = pytest.mark.timeout(180, method="thread")   # a hang fails, never blocks CI

EXCEPTIONS = {"assert": (safekern.KernelAssertionError, AssertionError),
              "zero_division": (safekern.KernelZeroDivisionError, ZeroDivisionError)}


def check_failure(err, case, dialect, filename):
    own, builtin = EXCEPTIONS[case.kind]
    assert type(err) is own and isinstance(err, builtin), repr(err)
    assert str(err).splitlines()[0] == case.message_for(dialect)
    assert (err.kernel, err.filename, err.lineno) == \
        (case.function, filename, K.site_line(case, dialect)), str(err)
    assert (err.thread, err.block) == case.where(), str(err)
    source = case.opencl if dialect == "opencl" else case.cuda
    assert err.source_line == source.split("\n")[err.lineno - 1]
    assert f"{filename}:{err.lineno}" in str(err) and "^" in str(err)


# -- OpenCL: PoCL here, NVIDIA's OpenCL on the GPU machine ----------------------------------------

def opencl_run(env, case, *, failing, name="k.cl"):
    import pyopencl.array as cla
    import safekern.opencl as skcl

    prg = skcl.Program(env.ctx, case.opencl, filename=name).build()
    x, d = K.inputs(case, failing)
    out = cla.zeros(env.queue, K.N, np.int32)
    prg.k(env.queue, (K.N,), (K.GROUP,), cla.to_device(env.queue, x),
          cla.to_device(env.queue, d), out)
    return prg, out, x


@pytest.mark.parametrize("name", list(K.CASES))
def test_opencl_failure_is_raised_at_the_sync_point(clenv, name):
    case = K.CASES[name]
    _, out, x = opencl_run(clenv, case, failing=True, name=f"{name}.cl")
    with pytest.raises(safekern.KernelError) as info:
        out.get()
    check_failure(info.value, case, "opencl", f"{name}.cl")
    K.check_after_failure(case, x, out.get())
    # raised once; the next launch runs and computes
    _, out, x = opencl_run(clenv, case, failing=False, name=f"{name}.cl")
    np.testing.assert_array_equal(out.get(), K.expected(case, x))


def test_opencl_report_lists_the_sites(clenv):
    prg, out, _ = opencl_run(clenv, K.CASES["assert_msg"], failing=False)
    out.get()
    report = prg.check_report()
    asserts = [e for e in report if e.kind == "assert"]
    assert [(e.lineno, e.status) for e in asserts] == [(4, "checked")]
    assert "1 other checks: 1 checked" in str(report)


def test_opencl_asserts_compiled_away(clenv, monkeypatch):
    set_safekern(monkeypatch, KERNEL_ASSERTS="0")
    prg, out, x = opencl_run(clenv, K.CASES["assert"], failing=True)
    np.testing.assert_array_equal(out.get(), x + 1)       # nothing raised, all computed
    assert [e.status for e in prg.check_report() if e.kind == "assert"] == ["unchecked"]
    assert "__SK_ASSERT_OFF(x[" in prg.checked_source
    # divisions stay checked
    _, out, _ = opencl_run(clenv, K.CASES["divide"], failing=True)
    with pytest.raises(safekern.KernelZeroDivisionError):
        out.get()


def test_opencl_checks_off_builds_safekern_assert_as_nothing(clenv, monkeypatch):
    set_safekern(monkeypatch, CHECKS="0")
    prg, out, x = opencl_run(clenv, K.CASES["assert_msg"], failing=True)
    np.testing.assert_array_equal(out.get(), 2 * x)
    assert not prg.check_report().checks


# -- CuPy: the GPU machine only -------------------------------------------------------------------

def _cupy():
    cp = pytest.importorskip("cupy")
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception:       # no driver: CuPy imports, but there is no device
        count = 0
    if not count:
        pytest.skip("no CUDA device")
    return cp


def cupy_run(case, *, failing, name="k.cu"):
    cp = _cupy()
    import safekern.cupy as skcp

    kernel = skcp.RawKernel(case.cuda, "k", filename=name)
    x, d = K.inputs(case, failing)
    out = cp.zeros(K.N, dtype=cp.int32)
    kernel((K.N // K.GROUP,), (K.GROUP,), (cp.asarray(x), cp.asarray(d), out))
    return kernel, out, x


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(K.CASES))
def test_cupy_failure_is_raised_and_the_context_survives(name, no_pending_failure):
    case = K.CASES[name]
    _, out, x = cupy_run(case, failing=True, name=f"{name}.cu")
    with pytest.raises(safekern.KernelError) as info:
        out.get()
    check_failure(info.value, case, "cuda", f"{name}.cu")
    K.check_after_failure(case, x, out.get())
    # CUDA's own assert would have ended the context: here the next launches work
    _, out, x = cupy_run(case, failing=False, name=f"{name}.cu")
    np.testing.assert_array_equal(out.get(), K.expected(case, x))
    cp = _cupy()
    assert int(cp.arange(10).sum()) == 45


@pytest.mark.gpu
def test_cupy_asserts_compiled_away(monkeypatch, no_pending_failure):
    set_safekern(monkeypatch, KERNEL_ASSERTS="0")
    kernel, out, x = cupy_run(K.CASES["assert"], failing=True)
    np.testing.assert_array_equal(out.get(), x + 1)
    assert "__SK_ASSERT_OFF(x[" in kernel.rewritten_source
    _, out, _ = cupy_run(K.CASES["divide"], failing=True)
    with pytest.raises(safekern.KernelZeroDivisionError):
        out.get()


@pytest.mark.gpu
def test_cupy_checks_off_compiles_safekern_assert_as_nothing(monkeypatch):
    set_safekern(monkeypatch, CHECKS="0")
    _, out, x = cupy_run(K.CASES["assert_msg"], failing=True)
    np.testing.assert_array_equal(out.get(), 2 * x)


def test_opencl_portable_fallback_builds_checked_and_with_plain_pyopencl(clenv):
    import pyopencl as cl

    fallback = ("#ifndef SAFEKERN_ASSERT\n#define SAFEKERN_ASSERT(c)\n"
                "#define SAFEKERN_ASSERT_MSG(c, ...)\n#endif\n")
    case = K.CASES["assert_msg"]
    plain = cl.Program(clenv.ctx, fallback + case.opencl).build()
    assert plain.k.num_args == 3
    shifted = K.Case(fallback + case.opencl, case.cuda, case.kind, case.message,
                     case.failing_index, case.zero_divisor, case.expected)
    _, out, _ = opencl_run(clenv, shifted, failing=True)
    with pytest.raises(safekern.KernelAssertionError) as info:
        out.get()
    assert info.value.lineno == K.site_line(case, "opencl") + 4
    assert str(info.value).splitlines()[0] == "x[37] is 37, not 00ff"
