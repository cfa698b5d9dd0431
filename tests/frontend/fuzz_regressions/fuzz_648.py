# launch raised IndexError (tid=[2, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 26 array 'idx': index 3 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 26 array 'idx': index 3 axis 0 size 2 thread (0, 0, 0) block (1, 0, 0); line 26 array 'idx': index 3 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0); line 26 array 'idx': 
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    q = q + 1
    return r + p

@safekern.jit
def kern648(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = (cuda.blockDim.x + 1) * (dst.shape[0] + i)
    loc = cuda.local.array(5, int64)
    for q in range(5):
        loc[q] = 2 * q
    v2 = (cuda.threadIdx.x) % 4 - 2
    if 0 <= v1 < idx.shape[0] and (v1 := v1 + 3) > 0:
        acc += idx[v1]
    v2 = idx[i]
    v2 -= 1
    res[t0] = acc



FUZZ_CASE = {'seed': 648, 'kernel': 'kern648', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (6,), 'int8', 'input')}, {'array': ('b', (4, 1), 'int32', 'input')}, {'array': ('idx', (2,), 'int32', 'index')}, {'array': ('c', (5,), 'int32', 'index')}, {'array': ('out', (3,), 'int32', 'output')}, {'array': ('o1', (0,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (10, 1), 'int64', 'private')}, {'array': ('hist', (2, 2), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
