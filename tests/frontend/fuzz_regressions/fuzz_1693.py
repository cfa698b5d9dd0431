# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination:  | with every check: line 34 array 'b': index 6 axis 0 size 4 thread (1, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if p >= dst.shape[0]:
        return r
    dst[p] = 1
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    if r < src.shape[0] and r >= 0:
        r += src[r]
    return r + p

@safekern.jit
def kern1693(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = -max(b.shape[0], i)
    v1 = (2) % 3
    v2 = cuda.threadIdx.x - 1 - 1
    for k1 in range(b.shape[0] - 0):
        k1 += 2
    v2 = -(cuda.threadIdx.x) % 4
    if 0 <= v2 < b.shape[0] and (v2 := v2 + 3) > 0:
        acc += b[v2]
    if cuda.threadIdx.x - 1 < 0 or cuda.threadIdx.x - 1 >= idx.shape[0]:
        return
    acc += idx[cuda.threadIdx.x - 1]
    v2 = cuda.grid(1) - 3
    res[t0] = acc



FUZZ_CASE = {'seed': 1693, 'kernel': 'kern1693', 'griddim': (1,), 'blockdim': (2,), 'params': [{'array': ('a', (5, 5, 3), 'int64', 'input')}, {'array': ('b', (4,), 'int64', 'input')}, {'array': ('idx', (7,), 'int32', 'index')}, {'array': ('c', (7,), 'int8', 'index')}, {'array': ('out', (1, 4), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (2, 4), 'int64', 'private')}, {'array': ('hist', (2,), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
