# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 7 is out of bounds for axis 0 with size 7) with elimination, None () with every check
# failures with elimination:  | with every check: line 12 array 'idx': index 7 axis 0 size 7 thread (2, 0, 0) block (1, 0, 0); line 12 array 'idx': index 8 axis 0 size 7 thread (3, 0, 0) block (1, 0, 0); line 12 array 'idx': index 9 axis 0 size 7 thread (4, 0, 0) block (1, 0, 0); line 20 array 'idx': 
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern2889(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = idx[i]
    v1 = 0
    v2 = 0
    for k0 in range(1, min(n, 12)):
        k0, v1 = v1, k0
        for k1 in range(1, idx.shape[0] + 1):
            if (v0) * (cuda.grid(1) - 1) <= b.shape[0]:
                k1 += 1
            acc += idx[k1 - 1]
            k0 = idx[k0]
    dst[t0 - 2] = 1
    if v1 < 0 or v1 >= dst.shape[0]:
        return
    dst[v1] = 1
    for k1 in range(max(v1, -12), b.shape[0] - 1, cuda.gridsize(1)):
        acc += b[k1 + 1]
        acc += b[k1]
        for k2 in range(t0 - 1, out.shape[0], 2):
            out[k2, t0, v0 + n] = 1
            out[k2 - t0 - 1, cuda.threadIdx.x, cuda.threadIdx.x - 1] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2889, 'kernel': 'kern2889', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (3,), 'int8', 'input')}, {'array': ('b', (6,), 'int64', 'input')}, {'array': ('idx', (7,), 'int32', 'index')}, {'array': ('c', (6,), 'int8', 'index')}, {'array': ('out', (3, 2, 1), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (10, 5), 'int64', 'private')}, {'array': ('hist', (6,), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 2, 'int')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
