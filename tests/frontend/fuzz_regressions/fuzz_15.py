# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination: line 30 array 'b': index 8 axis 0 size 3 thread (4, 0, 0) block (0, 0, 0); line 23 array 'out': index 4 axis 1 size 4 thread (2, 0, 0) block (0, 0, 0); line 23 array 'out': index 6 axis 1 size 4 thread (3, 0, 0) block (0, 0, 0) | with every check: line 30 array 'b': index 
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern15(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = m
    v2 = cuda.threadIdx.x + idx.shape[0] - 2
    if 0 <= t0 < a.shape[0] and i < xf and 0 <= v1 and v1 <= a.shape[2] - 1:
        acc += a[t0, i, v1]
    for k2 in range(i, min(n, 12)):
        acc += idx[k2]
        k2 -= 2
        v1 -= 2
    for k2 in range(i, out.shape[1]):
        for k0 in range(out.shape[2] - 1):
            out[k0 + 1, 2 * k2, k0 - 1] = 1
            if 0 <= v2 < out.shape[0] and (v2 := v2 + 3) > 0:
                out[v2, 0, 0] = 1
        for k1 in range(0, idx.shape[0] - 0, 2):
            k1 = 2 * v2 - 1
            acc += idx[k1 + 1]
            acc += idx[k1 - 0]
    acc += b[v2 + 2, v1 + 2]
    if v0 - cuda.threadIdx.x - 2 <= b.shape[1]:
        acc += a[a.shape[0] - 1, v1, src.shape[0] + 3]
        if 2 * v0 < xf:
            acc += src[2 * v0]
        for k1 in range(min(n, 12)):
            k1 -= 2
            o1[k1] = 1
            o1[k1] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 15, 'kernel': 'kern15', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (0, 5, 3), 'int16', 'input')}, {'array': ('b', (3, 2), 'int8', 'input')}, {'array': ('idx', (4,), 'uint8', 'index')}, {'array': ('c', (7,), 'int64', 'index')}, {'array': ('out', (4, 4, 3), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (5, 4), 'int64', 'private')}, {'array': ('hist', (1,), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', 1, 'uint32')}, {'scalar': ('m', 9, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
