# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 18 array 'b': index 3 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern1740(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = -cuda.threadIdx.x
    v1 = 0
    v2 = 0
    if -1 < 2 * cuda.threadIdx.x and not (2 * cuda.threadIdx.x >= a.shape[0]) and v2 <= a.shape[1] - 1:
        acc += a[2 * cuda.threadIdx.x, v2, i]
    if 0 <= v0 < b.shape[0] and (v0 := v0 + 3) > 0:
        acc += b[v0]
    v1 = v1
    res[t0] = acc



FUZZ_CASE = {'seed': 1740, 'kernel': 'kern1740', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (5, 1, 5), 'int32', 'input')}, {'array': ('b', (2,), 'uint32', 'input')}, {'array': ('idx', (3,), 'int64', 'index')}, {'array': ('c', (2,), 'int16', 'index')}, {'array': ('out', (5, 3, 6), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (1, 3), 'int64', 'private')}, {'array': ('hist', (5, 4), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 5, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
