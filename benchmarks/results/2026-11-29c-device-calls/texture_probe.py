"""CuPy texture and surface objects through safekern.cupy.RawKernel (CuPy's TextureObject API, the
kernels of CuPy's test_texture.py style): plain CuPy and safekern give the same values, and an
out-of-bounds write next to a texture fetch is reported.

    python texture_probe.py
"""
import numpy as np
import cupy as cp
from cupy.cuda import runtime
from cupy.cuda.texture import (ChannelFormatDescriptor, CUDAarray, ResourceDescriptor,
                               SurfaceObject, TextureDescriptor, TextureObject)

import safekern
import safekern.cupy as skcp

FETCH = r"""
extern "C" __global__ void fetch(float* out, cudaTextureObject_t tex, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + shift] = tex1Dfetch<float>(tex, i) + tex2D<float>(tex, 0.5f, 0.5f) * 0;
}
"""
SURF = r"""
extern "C" __global__ void copy_in(cudaSurfaceObject_t surf, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { surf1Dwrite(in[i], surf, i * 4); }
}
extern "C" __global__ void copy_out(float* out, cudaSurfaceObject_t surf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out[i] = surf1Dread<float>(surf, i * 4) * 2; }
}
"""
n = 256
data = cp.arange(n, dtype=cp.float32)
desc = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
res = ResourceDescriptor(runtime.cudaResourceTypeLinear, arr=data, chDesc=desc,
                         sizeInBytes=data.nbytes)
tex = TextureObject(res, TextureDescriptor())
for make in (cp.RawKernel, skcp.RawKernel):
    k = make(FETCH, "fetch")
    out = cp.zeros(n, cp.float32)
    k((1,), (n,), (out, tex, np.int32(n), np.int32(0)))
    print(make.__module__, "fetch ok:", bool((out == data).all()))
safekern.sync()
k = skcp.RawKernel(FETCH, "fetch")
out = cp.zeros(n, cp.float32)
k((1,), (n,), (out, tex, np.int32(n), np.int32(1)))
try:
    safekern.sync()
    print("NO ERROR")
except safekern.BoundsError as err:
    print("reported:", str(err).splitlines()[0], "line", err.lineno)

arr = CUDAarray(desc, n)
surf = SurfaceObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr))
for mod in (cp.RawModule, skcp.RawModule):
    m = mod(code=SURF)
    out = cp.zeros(n, cp.float32)
    m.get_function("copy_in")((1,), (n,), (surf, data, np.int32(n)))
    m.get_function("copy_out")((1,), (n,), (out, surf, np.int32(n)))
    print(mod.__module__, "surface ok:", bool((out == 2 * data).all()))
safekern.sync()
