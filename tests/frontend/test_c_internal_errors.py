"""A bug in a pass of the C front ends reaches the user as a located safekern.InternalError:
the kernel, file:line with the source line and a caret, the original exception as its cause
(frontend/located.py; each pass over a function runs in ParsedSource.located)."""
from __future__ import annotations

import pytest

pytest.importorskip("clang.cindex")

import safekern  # noqa: E402
from safekern.frontend.c import checks, cuda, cuda_access, exits, opencl  # noqa: E402
from safekern.frontend.c import writes as c_writes  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402

SAXPY = """__kernel void saxpy(__global const float *x, __global float *y, float a) {
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""


def broken(*args, **kwargs):
    raise KeyError("no such thing")


def internal_error(fn):
    with pytest.raises(safekern.InternalError) as info:
        fn()
    err = info.value
    assert isinstance(err.__cause__, KeyError)
    assert "internal error in safekern" in str(err) and "KeyError: 'no such thing'" in str(err)
    return err


def test_cuda_the_access_being_checked_is_named(monkeypatch):
    monkeypatch.setattr(cuda_access.CudaWalker, "_pointer_subscript", broken)
    err = internal_error(lambda: cuda.rewrite(K.GATHER, filename="gather.cu"))
    line = K.line(K.GATHER, "gather")
    assert (err.kernel, err.filename, err.lineno) == ("gather", "gather.cu", line)
    assert str(err).startswith(f"gather.cu:{line}: internal error in safekern")
    assert "(in 'gather')" in str(err)
    assert "out[i] = src[idx[i]];" in str(err) and "^" in str(err)


def test_cuda_a_pass_after_the_walk_names_the_kernel_line(monkeypatch):
    monkeypatch.setattr(c_writes, "scan", broken)
    err = internal_error(lambda: cuda.rewrite(K.GATHER, filename="gather.cu"))
    assert (err.kernel, err.filename, err.lineno) == ("gather", "gather.cu", 2)
    assert 'extern "C" __global__ void gather(' in str(err)


def test_cuda_through_the_cupy_backend(monkeypatch):
    from safekern.backends.cupy import api as backend

    monkeypatch.setattr(cuda_access.CudaWalker, "_pointer_subscript", broken)
    kernel = backend.RawKernel(K.GATHER, "gather", filename="through_cupy.cu")
    err = internal_error(kernel.check_report)
    assert err.filename == "through_cupy.cu" and err.kernel == "gather"


def test_opencl_the_access_being_analysed_is_named(monkeypatch):
    monkeypatch.setattr(checks.OpenCLWalker, "_subscript", broken)
    err = internal_error(lambda: opencl.rewrite(SAXPY, filename="saxpy.cl"))
    assert (err.kernel, err.filename, err.lineno) == ("saxpy", "saxpy.cl", 3)
    assert str(err).startswith("saxpy.cl:3: internal error in safekern")
    assert "y[i] = a * x[i] + y[i];" in str(err) and "^" in str(err)


def test_opencl_a_pass_after_the_analysis_names_the_kernel_line(monkeypatch):
    monkeypatch.setattr(exits.ControlPlan, "edits", broken)
    err = internal_error(lambda: opencl.rewrite(SAXPY, filename="saxpy.cl"))
    assert (err.kernel, err.filename, err.lineno) == ("saxpy", "saxpy.cl", 1)
    assert "__kernel void saxpy(" in str(err)


def test_errors_safekern_raises_on_purpose_pass_through():
    """An unsupported construct stays an UnsupportedError, not an internal error."""
    src = SAXPY + "__kernel void caller(__global float *y) { saxpy(y, y, 1.0f); }\n"
    with pytest.raises(safekern.UnsupportedError) as info:
        opencl.rewrite(src, filename="calls.cl")
    assert not isinstance(info.value, safekern.InternalError)
