# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 2 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination:  | with every check: line 16 array 'o1': index 2 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 16 array 'o1': index 2 axis 0 size 1 thread (0, 0, 0) block (1, 0, 0); line 16 array 'o1': index 2 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 16 array 'o1': inde
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern2341(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 3 + 3
    if 0 <= v1 < o1.shape[0] and (v1 := v1 + 2) > 0:
        o1[v1] = 1
    out[idx.shape[0] - 3, b.shape[0]] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2341, 'kernel': 'kern2341', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (2, 1, 2), 'int32', 'input')}, {'array': ('b', (4, 1), 'int16', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (6,), 'int8', 'index')}, {'array': ('out', (5, 6), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (1,), 'int32', 'output')}, {'array': ('priv', (6, 2), 'int64', 'private')}, {'array': ('hist', (1,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 9, 'int')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
