# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 1 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination:  | with every check: line 21 array 'out': index 1 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 21 array 'out': index 1 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 21 array 'out': index 1 axis 0 size 1 thread (3, 0, 0) block (0, 0, 0); line 21 array 'out': 
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern1880(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = i + -1 + 3
    v1 = 0
    v2 = m
    *_rest, v2 = a.shape
    v0 = cuda.threadIdx.x
    for k2 in range(max(idx[(cuda.grid(1)) % 3], -12), min(idx[m + 1], 12)):
        acc += idx[v2]
        if v1 + 2 < o1.shape[0]:
            if 0 <= v1 < out.shape[0] and (v1 := v1 + 1) > 0:
                out[v1] = 1
            priv[t0, v1 + 2] += idx[-1]
        if t0 <= o1.shape[0]:
            o1[t0] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1880, 'kernel': 'kern1880', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (3,), 'uint32', 'input')}, {'array': ('b', (1, 5), 'int8', 'input')}, {'array': ('idx', (8,), 'int32', 'index')}, {'array': ('c', (1,), 'uint8', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (5, 4), 'int64', 'private')}, {'array': ('hist', (6,), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
