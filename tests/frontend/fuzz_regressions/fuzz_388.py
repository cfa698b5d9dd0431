# array argument 5 differs
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern388(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = cuda.threadIdx.x
    v2 = -i - 1
    *_rest, v2 = out.shape
    sm = cuda.shared.array(8, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    priv[t0, cuda.threadIdx.x - 1] += v0
    dst[dst.shape[0] - 1 - i] = 1
    if -1 < v2 + 1 and out.shape[0] > v2 + 1:
        out[v2 + 1] = 1
        o1[v2] = 1
    acc += src[src.shape[0] - 1 - v2]
    priv[t0, priv.shape[1] - 1 - cuda.threadIdx.x] += v0
    v0 = -cuda.blockDim.x - 3
    if 0 <= a.shape[0] - 1 < a.shape[0]:
        for k0 in range(out.shape[0] - 0):
            out[k0] = 1
            out[k0] = 1
            out[k0 - 0] = 1
        acc += idx[idx.shape[0] - 1 - v1]
        v0 = idx[v2]
    else:
        dst[cuda.threadIdx.x] = 1
    if i < 0 or i >= o1.shape[0]:
        return
    v0 = v2 - 2
    o1[i] = 1
    if True:
        acc += b[t0 + 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 388, 'kernel': 'kern388', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (2, 4), 'int64', 'input')}, {'array': ('b', (4,), 'int64', 'input')}, {'array': ('idx', (2,), 'int32', 'index')}, {'array': ('c', (5,), 'uint8', 'index')}, {'array': ('out', (3,), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (6, 1), 'int64', 'private')}, {'array': ('hist', (2,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 3, 'int64')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
