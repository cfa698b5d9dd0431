# array argument 5 differs
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern1521(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 6 + x
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = -(dst.shape[0]) // 2
    v2 = (m) // 3 + x
    sm = cuda.shared.array((2, TILE), int32)
    for q in range(cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x, 2 * TILE, cuda.blockDim.x * cuda.blockDim.y):
        sm[q // TILE, q % TILE] = q
    cuda.syncthreads()
    loc = cuda.local.array(4, int64)
    for q in range(4):
        loc[q] = 2 * q
    dst = o2
    if v2 + 1 > dst.shape[0]:
        return
    dst[v2 + 1] = 1
    v2 = (x) * (idx.shape[0]) + 2
    for k0 in range(b.shape[0] - 0):
        acc += b[k0, v1]
    if idx[idx.shape[0] - 2] > idx.shape[0]:
        dst = o2
    else:
        v1 = cuda.blockIdx.x
    acc += b[t0, y]
    if x >= o1.shape[0]:
        return
    o1[x] = 1
    acc += b[v0, b.shape[1] - 0]
    for k0 in range(max(idx[cuda.threadIdx.x + 2], -12), min(idx[v0 + 2], 12)):
        if True:
            loc[x] = v1 - m - 2
    res[t0] = acc



FUZZ_CASE = {'seed': 1521, 'kernel': 'kern1521', 'griddim': (2, 1), 'blockdim': (3, 1), 'params': [{'array': ('a', (4,), 'int32', 'input')}, {'array': ('b', (1, 6), 'int32', 'input')}, {'array': ('idx', (2,), 'int32', 'index')}, {'array': ('c', (1,), 'uint32', 'index')}, {'array': ('out', (5, 1), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (6, 1), 'int64', 'private')}, {'array': ('hist', (5, 6), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 8, 'int')}, {'scalar': ('m', 5, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
