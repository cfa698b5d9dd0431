# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 7 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination:  | with every check: line 30 array 'idx': index 7 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0); line 30 array 'idx': index 7 axis 0 size 6 thread (0, 0, 0) block (1, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern227(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = -cuda.threadIdx.x
    loc = cuda.local.array(4, int64)
    for q in range(4):
        loc[q] = 2 * q
    if cuda.threadIdx.x >= out.shape[0]:
        return
    out[cuda.threadIdx.x, cuda.threadIdx.x, cuda.threadIdx.x] = 1
    if -1 < cuda.threadIdx.x and not (cuda.threadIdx.x >= src.shape[0]):
        acc += src[cuda.threadIdx.x]
    if cuda.threadIdx.x + v1 <= a.shape[0]:
        if v0 < 0 or v0 >= a.shape[0]:
            return
        v0 += 1
        acc += a[v0, cuda.threadIdx.x]
        for k2 in range(i, o1.shape[0]):
            if 0 <= v0 < idx.shape[0] and (v0 := v0 + 2) > 0:
                acc += idx[v0]
    dst[6] = 1
    v2 -= 2
    dst[dst.shape[0] - 1 - t0] = 1
    v0 = 5
    if 0 <= 2 * v1 < src.shape[0]:
        acc += src[2 * v1]
        if 0 <= v2 + 1 and v2 + 1 < idx.shape[0]:
            acc += idx[v2 + 1]
    acc += idx[i]
    res[t0] = acc



FUZZ_CASE = {'seed': 227, 'kernel': 'kern227', 'griddim': (2,), 'blockdim': (1,), 'params': [{'array': ('a', (6, 1), 'int32', 'input')}, {'array': ('b', (2, 4), 'int32', 'input')}, {'array': ('idx', (6,), 'int8', 'index')}, {'array': ('c', (4,), 'int16', 'index')}, {'array': ('out', (3, 2, 2), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (2, 1), 'int64', 'private')}, {'array': ('hist', (1,), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', 4, 'int')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
