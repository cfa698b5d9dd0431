# Uninstantiated function template whose body names an undeclared identifier: NVRTC (EDG) accepts
# the module (the template is never instantiated), libclang rejects it, so safekern refuses.
# From DiamondLightSource/httomolibgpu @a41819d httomolibgpu/cuda_kernels/raven_filter.cu (fftshift_2D).
from _repro_common import run
SRC = r'''
template <typename T>
__global__ void unused(T *out, int n) {
    data[threadIdx.x] *= 2;      // `data` is declared nowhere
}
extern "C" __global__ void k(float *out) { out[threadIdx.x] = 1.0f; }
'''
raise SystemExit(run(SRC))
