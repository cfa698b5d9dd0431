# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 8 is out of bounds for axis 0 with size 7) with elimination, None () with every check
# failures with elimination:  | with every check: line 26 array 'o1': index 8 axis 0 size 7 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern1565(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = -i
    v2 = 0
    loc = cuda.local.array(4, int64)
    for q in range(4):
        loc[q] = 2 * q
    v2 = -1
    if -1 < i + 1 and i + 1 < xf:
        acc += loc[i + 1]
        if -1 < v0 and not (v0 >= idx.shape[0]):
            acc += idx[v0]
    for k0 in range(o1.shape[0] - 1):
        o1[k0 - 0] = 1
        if 0 <= v1 < o1.shape[0] and (v1 := v1 + 2) > 0:
            o1[v1] = 1
        o1[k0] = 1
    v2 = cuda.threadIdx.x
    res[t0] = acc



FUZZ_CASE = {'seed': 1565, 'kernel': 'kern1565', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (6, 2), 'uint32', 'input')}, {'array': ('b', (4,), 'int32', 'input')}, {'array': ('idx', (3,), 'uint32', 'index')}, {'array': ('c', (2,), 'int64', 'index')}, {'array': ('out', (2, 6), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (10, 5), 'int64', 'private')}, {'array': ('hist', (4, 5), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', -2147483648, 'int32')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
