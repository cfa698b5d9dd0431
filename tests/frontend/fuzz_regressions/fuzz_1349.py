# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination:  | with every check: line 31 array 'b': index 6 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0); line 31 array 'b': index 6 axis 0 size 6 thread (0, 0, 0) block (1, 0, 0); line 31 array 'b': index 6 axis 0 size 6 thread (0, 1, 0) block (0, 0, 0); line 31 array 'b': index 6 
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern1349(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 4 + x
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = x - x + 3
    if 0 <= v1 < out.shape[0] and (v1 := v1 + 1) > 0:
        out[v1, 0] = 1
    if v1 >= 0 and v1 < src.shape[0]:
        acc += src[v1]
        v2 += 1
    for k1 in range(1, out.shape[1] - 1):
        out[2 * t0, k1] = 1
        out[y + 1, k1] = 1
    w1 = 0
    while w1 < 1:
        w1 += 1
        v2 += 2
    for k2 in range(1, min(n, 12), 2):
        if t0 < n:
            k2 += 1
        acc += b[k2 - 1]
        acc += b[k2]
    dst[v1] = 1
    if 0 <= v0 < o1.shape[0]:
        for k2 in range(o1.shape[0] + 1):
            priv[t0, x] += idx[2] + 3
            if v2 - 1 > a.shape[0]:
                continue
            acc += a[v2 - 1, v1]
            if True:
                acc += a[v1, v1]
                v0 -= 2
            o1[idx[v2 + v0]] = 1
        acc += a[v1, 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 1349, 'kernel': 'kern1349', 'griddim': (2, 1), 'blockdim': (2, 2), 'params': [{'array': ('a', (5, 6), 'int32', 'input')}, {'array': ('b', (6,), 'int64', 'input')}, {'array': ('idx', (3,), 'int16', 'index')}, {'array': ('c', (2,), 'int32', 'index')}, {'array': ('out', (6, 1), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (8, 1), 'int64', 'private')}, {'array': ('hist', (2, 3), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 6, 'int')}, {'scalar': ('m', 1, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
