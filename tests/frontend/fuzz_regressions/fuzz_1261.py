# array argument 4 differs
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern1261(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 1 + x
    src = c
    dst = o1
    acc = 0
    v0 = b.shape[1] + 1 + 3
    v1 = 0
    v2 = (x - m) // 3
    sm = cuda.shared.array((3, 4), int32)
    for q in range(cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x, 3 * 4, cuda.blockDim.x * cuda.blockDim.y):
        sm[q // 4, q % 4] = q
    cuda.syncthreads()
    priv[t0, v1] += m
    for k2 in range(o1.shape[0]):
        acc += src[idx[x]]
    if not (0 <= 2 * v2 < out.shape[0]):
        return
    out[2 * v2] = 1
    if 0 <= v2 and out.shape[0] + 1 > v2:
        out[v2] = 1
    cuda.syncthreads()
    cuda.atomic.add(hist, x, 1)
    if 0 <= x and not (x >= out.shape[0]):
        out[x] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1261, 'kernel': 'kern1261', 'griddim': (1, 1), 'blockdim': (1, 3), 'params': [{'array': ('a', (2,), 'int64', 'input')}, {'array': ('b', (3, 6), 'int8', 'input')}, {'array': ('idx', (4,), 'int32', 'index')}, {'array': ('c', (1,), 'int32', 'index')}, {'array': ('out', (6,), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (1,), 'int32', 'output')}, {'array': ('priv', (3, 5), 'int64', 'private')}, {'array': ('hist', (6,), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', 4294967295, 'uint32')}, {'scalar': ('m', 254, 'uint8')}, {'scalar': ('xf', 4.0, 'float')}]}
