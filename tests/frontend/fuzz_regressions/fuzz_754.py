# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination: line 16 array 'priv': index 3 axis 1 size 2 thread (0, 1, 0) block (0, 0, 0); line 16 array 'priv': index 5 axis 1 size 2 thread (0, 2, 0) block (0, 0, 0) | with every check: line 22 array 'b': index 6 axis 0 size 5 thread (0, 0, 0) block (0, 0, 0); line 16 array 'priv': i
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern754(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = c
    dst = o2
    acc = 0
    v0 = 2 * cuda.blockDim.x
    v1 = idx[y]
    v2 = (out.shape[0]) // 4 - (6) % 4
    *_rest, v2 = a.shape
    priv[t0, t0 + 1] = idx[idx.shape[0] - 1]
    out[1] = 1
    if v1 < a.shape[0] or min(-1 * m, m) > 0:
        v1 = (idx.shape[0] + v1) * (y)
        for k2 in range(2):
            if 0 <= v0 < b.shape[0] and (v0 := v0 + 2) > 0:
                acc += b[v0]
        if x + n >= 0 and x + n < a.shape[0]:
            acc += a[x + n]
    v2 -= 2
    if 0 <= v1 and v1 < xf:
        o1[v1] = 1
    dst[0] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 754, 'kernel': 'kern754', 'griddim': (2, 1), 'blockdim': (1, 3), 'params': [{'array': ('a', (1,), 'int32', 'input')}, {'array': ('b', (5,), 'int32', 'input')}, {'array': ('idx', (8,), 'int32', 'index')}, {'array': ('c', (1,), 'uint32', 'index')}, {'array': ('out', (4,), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (6, 2), 'int64', 'private')}, {'array': ('hist', (3, 3), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 5, 'int')}, {'scalar': ('m', 3, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
