# launch raised IndexError (tid=[0, 1, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination:  | with every check: line 38 array 'o1': index 6 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0); line 38 array 'o1': index 6 axis 0 size 6 thread (0, 0, 0) block (1, 0, 0); line 38 array 'o1': index 6 axis 0 size 6 thread (0, 1, 0) block (0, 0, 0); line 38 array 'o1': inde
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    q = q + 2
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    if p < src.shape[0]:
        r += src[p]
    if r >= dst.shape[0]:
        return r
    dst[r] = 1
    return r + p

@safekern.jit
def kern966(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 4 + x
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = n + 3 + 1
    v2 = 0
    *_rest, v2 = a.shape
    w1 = 0
    while w1 < 2 and (out.shape[0] - 1 - y < out.shape[0] or v2 > 0):
        w1 += 1
        v0 += 2
        v0 = n
        if 0 <= v2 < o1.shape[0] and (v2 := v2 + 1) > 0:
            o1[v2] = 1
    for k2 in range(0, b.shape[0] - 0, 3):
        k2 += 2
    v1 = v0
    res[t0] = acc



FUZZ_CASE = {'seed': 966, 'kernel': 'kern966', 'griddim': (2, 1), 'blockdim': (2, 2), 'params': [{'array': ('a', (5, 5), 'int32', 'input')}, {'array': ('b', (4, 2), 'int32', 'input')}, {'array': ('idx', (3,), 'int8', 'index')}, {'array': ('c', (3,), 'int64', 'index')}, {'array': ('out', (3,), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (8, 1), 'int64', 'private')}, {'array': ('hist', (1, 6), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 6, 'int')}, {'scalar': ('m', 7, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
