import sys, numpy as np
import safekern, safekern.cupy as skcp
code = r'''
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) y[i] += a * x[i];
}
'''
k = skcp.RawKernel(code, "axpy")
step = sys.argv[1]
if step == "report":
    print(k.check_report())
    print(k.rewritten_source[:1500])
elif step == "badname":
    k2 = skcp.RawKernel(code, "axpi")
    print(k2.check_report())
elif step == "compile":
    k.compile()
    print("compiled")
elif step == "launch":
    k((4,), (32,), (np.zeros(128, np.float32), np.ones(128, np.float32), np.float32(2), np.int32(128)))
