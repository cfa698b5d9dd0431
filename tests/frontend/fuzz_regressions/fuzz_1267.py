# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index -8 is out of bounds for axis 0 with size 7) with elimination, None () with every check
# failures with elimination:  | with every check: line 18 array 'dst': index -8 axis 0 size 7 thread (0, 0, 0) block (0, 0, 0); line 18 array 'dst': index -8 axis 0 size 7 thread (0, 0, 0) block (1, 0, 0); line 18 array 'dst': index -8 axis 0 size 7 thread (0, 1, 0) block (0, 0, 0); line 18 array 'dst
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern1267(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = idx
    dst = o2
    acc = 0
    v0 = x
    v1 = 0
    v2 = 0
    v0 = -2 + -v2
    for k2 in range(1, dst.shape[0] - 1):
        k2 = -n
        dst[k2 + 1] = 1
        dst[k2] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1267, 'kernel': 'kern1267', 'griddim': (2, 1), 'blockdim': (1, 2), 'params': [{'array': ('a', (6, 2, 2), 'int32', 'input')}, {'array': ('b', (3, 1), 'int32', 'input')}, {'array': ('idx', (4,), 'uint32', 'index')}, {'array': ('c', (2,), 'uint8', 'index')}, {'array': ('out', (0, 4), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (4, 2), 'int64', 'private')}, {'array': ('hist', (4, 4), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 9, 'int64')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
