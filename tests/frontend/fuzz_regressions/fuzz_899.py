# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 1 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination: line 22 array 'priv': index -7 axis 1 size 2 thread (4, 0, 0) block (0, 0, 0); line 22 array 'priv': index -5 axis 1 size 2 thread (3, 0, 0) block (0, 0, 0); line 22 array 'priv': index -3 axis 1 size 2 thread (2, 0, 0) block (0, 0, 0); line 23 array 'dst': index 1 axis 0 
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern899(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = (m - 1) * (cuda.threadIdx.x)
    v1 = min(t0, t0) - max(v1, v2)
    if 0 <= v1 < idx.shape[0] and (v1 := v1 + 1) > 0:
        acc += idx[v1]
    for k2 in range(0, o1.shape[0], 2):
        k2 = v0
        o1[k2] = 1
        o1[k2 - 0] = 1
    priv[t0, priv.shape[1] - 1 - v2] += cuda.threadIdx.x
    dst[i] = 1
    dst[v1 - 2] = 1
    if n + 3 - 2 <= idx.shape[0]:
        return
    w1 = 0
    while w1 < 4 and (i + 1 >= 0 and i + 1 < b.shape[0]):
        w1 += 1
        if 0 <= v1 < b.shape[0] and (v1 := v1 + 2) > 0:
            acc += b[v1]
    cuda.atomic.max(hist, t0 + b.shape[0], 3)
    res[t0] = acc



FUZZ_CASE = {'seed': 899, 'kernel': 'kern899', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (1, 3, 5), 'int8', 'input')}, {'array': ('b', (2,), 'int32', 'input')}, {'array': ('idx', (1,), 'int32', 'index')}, {'array': ('c', (3,), 'int8', 'index')}, {'array': ('out', (5, 1), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (0,), 'int32', 'output')}, {'array': ('priv', (5, 2), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 3, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
