# launch raised IndexError (tid=[0, 1, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 16 array 'src': index 2 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 16 array 'src': index 2 axis 0 size 2 thread (0, 0, 0) block (1, 0, 0); line 16 array 'src': index 2 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0); line 16 array 'src': 
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit
def kern1690(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 6 + x
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = y
    if 0 <= v2 < src.shape[0] and (v2 := v2 + 2) > 0:
        acc += src[v2]
    res[t0] = acc



FUZZ_CASE = {'seed': 1690, 'kernel': 'kern1690', 'griddim': (2, 1), 'blockdim': (3, 3), 'params': [{'array': ('a', (6,), 'int16', 'input')}, {'array': ('b', (6,), 'uint32', 'input')}, {'array': ('idx', (2,), 'int64', 'index')}, {'array': ('c', (1,), 'uint32', 'index')}, {'array': ('out', (3, 4), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (18, 1), 'int64', 'private')}, {'array': ('hist', (2, 6), 'int64', 'hist')}, {'array': ('res', (18,), 'int64', 'result')}, {'scalar': ('n', 254, 'uint8')}, {'scalar': ('m', -1, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
