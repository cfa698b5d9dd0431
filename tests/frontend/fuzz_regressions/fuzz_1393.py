# failures with elimination: line 31 array 'b': index 7 axis 0 size 6 thread (1, 0, 0) block (0, 0, 0); line 31 array 'b': index 8 axis 0 size 6 thread (2, 0, 0) block (1, 0, 0); line 31 array 'b': index 10 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0) | with every check: line 31 array 'b': index 7 a
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    dst[r - 1] = 1
    return r + p

@safekern.jit
def kern1393(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = idx[i + 1]
    v2 = 0
    sm = cuda.shared.array(TILE, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    if 0 <= cuda.threadIdx.x < b.shape[0] and -1 < t0 and t0 < b.shape[1]:
        acc += b[cuda.threadIdx.x, t0]
        v0 = 1 + 1 - 2
    if max(3, i - 2) < n:
        return
    if cuda.threadIdx.x + 1 < xf:
        acc += b[v1, cuda.threadIdx.x + 1]
    acc += sm[cuda.threadIdx.x - 2]
    if v1 < 0 or v1 >= src.shape[0]:
        return
    acc += src[v1]
    cuda.syncthreads()
    for k0 in range(0, min(n, 12), 2):
        acc += src[k0]
    v1 -= 1
    if v1 - 1 < a.shape[0] or i > 3:
        acc += sm[i]
        if i + 1 >= 0 and i + 1 < sm.shape[0]:
            acc += sm[i + 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 1393, 'kernel': 'kern1393', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (5,), 'int32', 'input')}, {'array': ('b', (6, 4), 'int32', 'input')}, {'array': ('idx', (8,), 'int32', 'index')}, {'array': ('c', (4,), 'int8', 'index')}, {'array': ('out', (5, 6, 2), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (6, 2), 'int64', 'private')}, {'array': ('hist', (6, 3), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', -1, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
