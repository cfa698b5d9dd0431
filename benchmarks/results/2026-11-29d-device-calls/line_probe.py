"""A CUDA C kernel after the source's own `#line` directive, through safekern.cupy on a GPU: the
failure names the presumed file:line (gen.cu:100) with the line as written, and a device
function's failure names its call at its presumed line too."""
import cupy as cp
import numpy as np

import safekern
import safekern.cupy as skcp

SRC = r'''
#line 100 "gen.cu"
__device__ float get(const float *a, int i) { return a[i]; }
extern "C" __global__ void shift(const float *a, float *out, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = get(a, i + off);
}
'''
k = skcp.RawKernel(SRC, "shift")
a = cp.arange(64, dtype=cp.float32)
out = cp.zeros_like(a)
k((1,), (64,), (a, out, np.int32(64), np.int32(0)))
assert (out.get() == np.arange(64)).all()
k((1,), (64,), (a, out, np.int32(64), np.int32(1)))
try:
    out.get()
    raise SystemExit("no failure reported")
except safekern.BoundsError as e:
    print(e)
    assert (e.filename, e.lineno) == ("gen.cu", 100), (e.filename, e.lineno)
    assert [(f.filename, f.lineno) for f in e.call_chain] == [("gen.cu", 103)], e.call_chain
    print("OK: #line followed on the GPU")
