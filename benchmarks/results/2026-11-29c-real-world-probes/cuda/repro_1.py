# clock_t / clock() (CUDA device builtins): plain NVRTC compiles, safekern refuses (libclang parse).
# From cupy/cupy tests/cupy_tests/core_tests/test_ndarray.py (_test_copy_multi_device_with_stream_src).
from _repro_common import run
SRC = r'''
extern "C" __global__ void k(long long *x) {
    clock_t t = clock();
    x[0] = t;
}
'''
raise SystemExit(run(SRC))
