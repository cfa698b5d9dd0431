# array argument 6 differs
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    for t in range(src.shape[0]):
        dst[t] = 1
    return r + p

@safekern.jit
def kern2287(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = cuda.threadIdx.x + 3 - 2
    v1 = 0
    v2 = (cuda.threadIdx.x - 2) // 4
    loc = cuda.local.array(3, int64)
    for q in range(3):
        loc[q] = 2 * q
    if 0 <= v1 < idx.shape[0]:
        acc += idx[v1]
        src = c
    if 2 * v2 >= dst.shape[0]:
        return
    dst[2 * v2] = 1
    for k1 in range(out.shape[1]):
        for k0 in range(1, min(n, 12)):
            acc += src[k0]
        for k2 in range(max(v2, -12), src.shape[0] + 1):
            acc += src[k2 - 1]
            v0 = d0(src, dst, 2 * (cuda.blockDim.x) * (k2), v0 + 3 - v2)
        v1 = (v1) % 3
        v0 -= 1
    for k2 in range(0, o1.shape[0], 2):
        o1[k2] = 1
        o1[k2 - 0] = 1
        o1[k2] = 1
    for k2 in range(t0 - 1, min(n, 12), cuda.gridsize(1)):
        acc += a[k2 - t0 - 1, v1 + n]
    res[t0] = acc



FUZZ_CASE = {'seed': 2287, 'kernel': 'kern2287', 'griddim': (1,), 'blockdim': (2,), 'params': [{'array': ('a', (6, 5), 'int16', 'input')}, {'array': ('b', (6, 1), 'int32', 'input')}, {'array': ('idx', (5,), 'int32', 'index')}, {'array': ('c', (1,), 'int8', 'index')}, {'array': ('out', (2, 3), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (2, 5), 'int64', 'private')}, {'array': ('hist', (4, 3), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
