# Texture objects: cudaTextureObject_t + tex1Dfetch<T>() -- plain NVRTC compiles, safekern refuses.
# From cupy/cupy tests/cupy_tests/cuda_tests/test_texture.py (source_texobj); CuPy's TextureObject API.
from _repro_common import run
SRC = r'''
extern "C" __global__ void k(float* out, cudaTextureObject_t tex, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}
'''
raise SystemExit(run(SRC))
