# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 1 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination: line 37 array 'idx': index 3 axis 0 size 3 thread (3, 0, 0) block (0, 0, 0) | with every check: line 44 array 'b': index 1 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 44 array 'b': index 1 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 44 array 'b': index 1 
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if p >= dst.shape[0]:
        return r
    dst[p] = 1
    if q < src.shape[0] and q >= 0:
        r += src[q]
    for t in range(min(p, 12)):
        dst[t] = 1
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    for t in range(min(p, 12)):
        dst[t] = 1
    for t in range(src.shape[0]):
        r += src[t + q]
    dst[r] = 1
    return r + p

@safekern.jit
def kern1365(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = -0 - 3
    v1 = 0
    v2 = 0
    v2 = idx[i]
    for k2 in range(max(v0, -12), min(n, 12)):
        if not (3 * 2 * cuda.threadIdx.x >= o1.shape[0]):
            k2 += 1
    for k1 in range(b.shape[0]):
        if k1 < m:
            k1 += 1
        acc += b[k1]
    if 0 <= -v2 - 1 < idx.shape[0]:
        if 0 <= v2 and v2 < idx.shape[0]:
            acc += idx[v2]
    v0 = d0(src, dst, -v0 + (b.shape[0]) // 2, (v1) % 3 + v0)
    if -1 < v2 and v2 < xf:
        dst[v2] = 1
    if -v0 - 2 == cuda.threadIdx.x - 1:
        return
    for k2 in range(min(n, 12)):
        o1[k2 - 1] = 1
        o1[k2 - 1] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1365, 'kernel': 'kern1365', 'griddim': (2,), 'blockdim': (4,), 'params': [{'array': ('a', (5, 2), 'int32', 'input')}, {'array': ('b', (1,), 'uint32', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (7,), 'int32', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (8, 1), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', 9, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
