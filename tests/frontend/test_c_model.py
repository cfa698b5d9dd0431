"""One model for both C dialects: a CUDA C and an OpenCL C rewrite return the same result type,
kernel type and parameter type, read the same way (the backends and the report rely on it)."""
import pytest

pytest.importorskip("clang.cindex")

from safekern.frontend.c import cuda, opencl
from safekern.frontend.c.kernel_info import KernelInfo
from safekern.frontend.c.param_info import ParamInfo
from safekern.frontend.c.rewrite_result import Rewrite
from safekern.report import CheckReport

CU = """extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
CL = """__kernel void axpy(float a, __global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@pytest.mark.parametrize("front, src, name", [(cuda, CU, "k.cu"), (opencl, CL, "k.cl")],
                         ids=["cuda", "opencl"])
def test_both_dialects_return_one_model(front, src, name):
    rw = front.rewrite(src, filename=name)
    assert type(rw) is Rewrite and rw.filename == name and rw.original == src
    assert f'#line 1 "{name}"' in rw.source
    (k,) = rw.kernels
    assert type(k) is KernelInfo and rw.kernel("axpy") is k and rw.kernel("nope") is None
    assert k.name == k.qualified == "axpy" and k.lineno == 1 and k.checked
    assert all(type(p) is ParamInfo and p.cursor is None for p in k.params)
    assert [(p.index, p.name, p.is_pointer) for p in k.params] == [
        (0, "a", False), (1, "x", True), (2, "y", True), (3, "n", False)]
    assert [p.name for p in k.pointer_params] == ["x", "y"] and k.n_user_args == 4
    x = k.pointer_params[0]
    assert x.pointee.startswith("const ") and x.pointee.endswith(" float")
    assert x.address_space == ("__global" if front is opencl else "")
    assert k.written == ("y",)
    report = rw.report()
    assert isinstance(report, CheckReport) and report.filename == name
    assert sorted(e.text for e in report) == ["x[i]", "y[i]", "y[i]"]
    assert {e.status for e in report} == {"checked"}
    assert len(rw.failure_sites) == 3 and not rw.unchecked
