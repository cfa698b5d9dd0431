# array argument 5 differs
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern1614(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    sm = cuda.shared.array(1024, int32)
    for q in range(cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x * cuda.blockDim.y):
        sm[q] = q
    cuda.syncthreads()
    if out.shape[1] >= idx[0]:
        cuda.atomic.add(hist, (v2, x), 1)
        for k2 in range(b.shape[0] - 1):
            acc += b[k2, v1]
    else:
        for k2 in range(sm.shape[0]):
            acc += sm[k2]
            k2 = v1
        w1 = 0
        while w1 < 2:
            w1 += 1
            out[t0 - 2, v0 + v1] = 1
    for k2 in range(max(2 * v2, -12), min(n, 12), 3):
        o1[k2 - 1] = 1
    if y >= o1.shape[0]:
        return
    o1[y] = 1
    acc += idx[x]
    cuda.syncthreads()
    priv[t0, x + 1] += a.shape[0]
    if v1 >= idx[idx.shape[0] - 2]:
        for k2 in range(1, min(n, 12)):
            acc += src[k2]
            acc += src[k2 + 1]
            acc += src[k2]
    res[t0] = acc



FUZZ_CASE = {'seed': 1614, 'kernel': 'kern1614', 'griddim': (1, 1), 'blockdim': (2, 3), 'params': [{'array': ('a', (5,), 'int64', 'input')}, {'array': ('b', (2, 2), 'int32', 'input')}, {'array': ('idx', (8,), 'int64', 'index')}, {'array': ('c', (7,), 'int32', 'index')}, {'array': ('out', (6, 6), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (6, 5), 'int64', 'private')}, {'array': ('hist', (3, 2), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 7, 'uint32')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
