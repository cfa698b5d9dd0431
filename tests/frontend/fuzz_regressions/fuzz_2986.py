# launch raised IndexError (tid=[0, 2, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 3) with elimination, None () with every check
# failures with elimination:  | with every check: line 20 array 'b': index 3 axis 0 size 3 thread (0, 1, 0) block (0, 0, 0); line 20 array 'b': index 3 axis 0 size 3 thread (0, 1, 0) block (1, 0, 0); line 20 array 'b': index 4 axis 0 size 3 thread (0, 2, 0) block (0, 0, 0); line 20 array 'b': index 4 
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern2986(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = c
    dst = o1
    acc = 0
    v0 = 3 * 7 - 3
    v1 = 0
    v2 = 2 * -1 * y
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    v0 = y
    if 0 <= v0 < b.shape[0] and (v0 := v0 + 2) > 0:
        acc += b[v0]
    res[t0] = acc



FUZZ_CASE = {'seed': 2986, 'kernel': 'kern2986', 'griddim': (2, 1), 'blockdim': (1, 3), 'params': [{'array': ('a', (2, 6), 'int8', 'input')}, {'array': ('b', (3,), 'int64', 'input')}, {'array': ('idx', (7,), 'uint8', 'index')}, {'array': ('c', (8,), 'int32', 'index')}, {'array': ('out', (1, 6, 4), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (6, 4), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
