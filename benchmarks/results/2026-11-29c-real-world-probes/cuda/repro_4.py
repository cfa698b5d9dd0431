# Narrowing conversion in a braced initializer (size_t -> int): NVRTC accepts (a warning at most),
# libclang makes it a hard error, so safekern refuses. From rapidsai/cusignal @632acfe
# python/cusignal/filtering/_upfirdn_cuda.py (_cupy_upfirdn_1d): `int h_idx { (tid * down) % up * h_per_phase };`
from _repro_common import run
SRC = r'''
extern "C" __global__ void k(int *out, int up) {
    size_t tid = threadIdx.x;
    int h { tid % up };
    out[h] = 1;
}
'''
raise SystemExit(run(SRC))
