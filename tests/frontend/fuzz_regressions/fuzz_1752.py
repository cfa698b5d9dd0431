# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 3) with elimination, None () with every check
# failures with elimination:  | with every check: line 20 array 'idx': index 4 axis 0 size 3 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit
def kern1752(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = idx[y] - 1
    if x < 0 or x >= out.shape[0]:
        return
    out[x] = 1
    for k0 in range(max(v1, -12), src.shape[0]):
        if 0 <= v1 < idx.shape[0] and (v1 := v1 + 2) > 0:
            acc += idx[v1]
        if v2 - 1 >= 0 and not (v2 - 1 >= src.shape[0]):
            acc += src[v2 - 1]
        v1 = (idx[v0 - 1]) * (a.shape[2])
        for k1 in range(1, src.shape[0], 2):
            k0 = m + 2
            k1 -= 1
            for k2 in range(b.shape[0]):
                dst[n] = 1
    dst = o1
    for k1 in range(1, min(n, 12), 3):
        dst[k1 + 1] = 1
        dst[k1 - 1] = 1
        dst[k1 - 1] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1752, 'kernel': 'kern1752', 'griddim': (1, 1), 'blockdim': (2, 1), 'params': [{'array': ('a', (1, 6, 1), 'uint8', 'input')}, {'array': ('b', (2, 2), 'int32', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (2,), 'int64', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (2, 1), 'int64', 'private')}, {'array': ('hist', (3, 6), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 3, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
