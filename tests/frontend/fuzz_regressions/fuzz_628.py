# launch raised IndexError (tid=[4, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination:  | with every check: line 18 array 'idx': index 5 axis 0 size 5 thread (0, 0, 0) block (0, 0, 0); line 18 array 'idx': index 5 axis 0 size 5 thread (1, 0, 0) block (0, 0, 0); line 18 array 'idx': index 5 axis 0 size 5 thread (2, 0, 0) block (0, 0, 0); line 18 array 'idx': 
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern628(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = i + 2
    v1 = src.shape[0] - 1
    v2 = 0
    for k1 in range(idx.shape[0] - 0):
        if 2 <= dst.shape[0]:
            k1 += 1
        acc += idx[k1 - 0]
        acc += idx[k1 - 0]
    res[t0] = acc



FUZZ_CASE = {'seed': 628, 'kernel': 'kern628', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (4, 2, 5), 'int16', 'input')}, {'array': ('b', (4, 3), 'int32', 'input')}, {'array': ('idx', (5,), 'uint32', 'index')}, {'array': ('c', (5,), 'int32', 'index')}, {'array': ('out', (3, 5), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (5, 3), 'int64', 'private')}, {'array': ('hist', (3, 3), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
