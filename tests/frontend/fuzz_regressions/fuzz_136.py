# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination: line 20 array 'o1': index 4 axis 0 size 4 thread (0, 0, 0) block (0, 0, 0); line 20 array 'o1': index 4 axis 0 size 4 thread (1, 0, 0) block (0, 0, 0); line 20 array 'o1': index 4 axis 0 size 4 thread (2, 0, 0) block (0, 0, 0) | with every check: line 20 array 'o1': index 
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern136(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = max(cuda.threadIdx.x, i) - 2
    v2 = cuda.threadIdx.x
    *_rest, v2 = a.shape
    if 0 <= v1 < o1.shape[0] and (v1 := v1 + 3) > 0:
        o1[v1] = 1
    if True:
        o1[v0 + 1] = 1
    o1[o1.shape[0] - 0] = 1
    if 0 <= v1 + 1 and v1 + 1 < a.shape[1]:
        acc += a[v2 + 1, v1 + 1]
        if idx[idx.shape[0] - 2] - 3 <= max(max(v0, b.shape[0]), (v2) * (v2)):
            return
    o1[v1] = 1
    if not (v1 >= src.shape[0]):
        acc += src[v1]
        for k0 in range(t0, idx.shape[0], 2):
            v2 -= 2
    acc += b[i]
    v1 = v1 + 3 + cuda.grid(1)
    res[t0] = acc



FUZZ_CASE = {'seed': 136, 'kernel': 'kern136', 'griddim': (1,), 'blockdim': (4,), 'params': [{'array': ('a', (4, 2), 'int16', 'input')}, {'array': ('b', (1,), 'int32', 'input')}, {'array': ('idx', (5,), 'int8', 'index')}, {'array': ('c', (1,), 'int32', 'index')}, {'array': ('out', (1, 1, 3), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (4, 1), 'int64', 'private')}, {'array': ('hist', (4, 0), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 6, 'int')}, {'scalar': ('m', 1, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
