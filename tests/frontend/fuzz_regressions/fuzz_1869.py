# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination: line 27 array 'loc': index 2 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0) | with every check: line 35 array 'dst': index 4 axis 0 size 4 thread (3, 0, 0) block (0, 0, 0); line 35 array 'dst': index 4 axis 0 size 4 thread (3, 0, 0) block (1, 0, 0); line 27 array 'loc': in
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern1869(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = (cuda.threadIdx.x) % 4
    v1 = 0
    v2 = i
    loc = cuda.local.array(1, int64)
    for q in range(1):
        loc[q] = 2 * q
    for k0 in range(cuda.threadIdx.x, out.shape[0], 2):
        if not (t0 - 1 >= b.shape[0]) and b.shape[1] > v2:
            acc += b[t0 - 1, v2]
        loc[1 - 1 - v1] = 2 * 2
        if 0 <= a.shape[1] - 1 < a.shape[1]:
            if not (0 <= t0 < b.shape[0]):
                return
            v2 = max(i + t0, max(3, k0))
            acc += b[t0, cuda.threadIdx.x]
            acc += loc[m]
        for k2 in range(max(k0, -12), o1.shape[0]):
            if 0 <= k2 - 2 < src.shape[0]:
                k0 += 1
    w1 = 0
    while w1 < 3:
        w1 += 1
        if 0 <= v0 < dst.shape[0] and (v0 := v0 + 1) > 0:
            dst[v0] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1869, 'kernel': 'kern1869', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (2, 4, 3), 'int8', 'input')}, {'array': ('b', (1, 6), 'int16', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (5,), 'int32', 'index')}, {'array': ('out', (3,), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (1,), 'int32', 'output')}, {'array': ('priv', (10, 4), 'int64', 'private')}, {'array': ('hist', (4, 5), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 5, 'int')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
