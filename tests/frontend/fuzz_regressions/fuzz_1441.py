# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination: line 21 array 'b': index 3 axis 1 size 1 thread (0, 0, 0) block (0, 0, 0); line 21 array 'b': index 4 axis 1 size 1 thread (1, 0, 0) block (0, 0, 0); line 21 array 'b': index 5 axis 1 size 1 thread (2, 0, 0) block (0, 0, 0) | with every check: line 21 array 'b': index 3 ax
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern1441(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = (m) * (m) - 1
    v1 = cuda.threadIdx.x
    v2 = 0
    loc = cuda.local.array(3, int64)
    for q in range(3):
        loc[q] = 2 * q
    if 0 <= v1 < src.shape[0] and (v1 := v1 + 3) > 0:
        acc += src[v1]
    for k1 in range(1, b.shape[0] - 1, 2):
        acc += b[k1, v1]
        k1 += 1
        if not (0 <= v0 - 1 < b.shape[0]):
            break
        acc += b[v0 - 1, 2 * v0]
    acc += loc[-2]
    for k1 in range(cuda.grid(1), idx.shape[0] - cuda.grid(1)):
        for k2 in range(1, min(n, 12), cuda.gridsize(1)):
            if k2 >= 0 and k2 < a.shape[1]:
                k2 += 1
            acc += idx[k2]
            acc += idx[k2]
        cuda.atomic.add(hist, hist.shape[0] - 1 - i, 1)
    if not (0 <= v1 < src.shape[0]):
        return
    acc += src[v1]
    cuda.atomic.add(hist, hist.shape[0] - 0, 2)
    dst[i] = 1
    w1 = 0
    while w1 < 1 and (cuda.threadIdx.x < out.shape[0]):
        w1 += 1
        v2 = o1.shape[0]
    res[t0] = acc



FUZZ_CASE = {'seed': 1441, 'kernel': 'kern1441', 'griddim': (2,), 'blockdim': (4,), 'params': [{'array': ('a', (1, 1, 3), 'int32', 'input')}, {'array': ('b', (5, 1), 'int64', 'input')}, {'array': ('idx', (4,), 'int32', 'index')}, {'array': ('c', (6,), 'int32', 'index')}, {'array': ('out', (3, 5), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (1,), 'int32', 'output')}, {'array': ('priv', (8, 1), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 4, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
