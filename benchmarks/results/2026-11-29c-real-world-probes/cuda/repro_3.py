# Surface objects: cudaSurfaceObject_t + surf1Dwrite() -- plain NVRTC compiles, safekern refuses.
# From cupy/cupy tests/cupy_tests/cuda_tests/test_texture.py (source_surfobj).
from _repro_common import run
SRC = r'''
extern "C" __global__ void k(cudaSurfaceObject_t surf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) surf1Dwrite(1.0f, surf, i * 4);
}
'''
raise SystemExit(run(SRC))
