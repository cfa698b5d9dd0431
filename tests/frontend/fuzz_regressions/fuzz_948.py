# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern948(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = -cuda.threadIdx.x
    v1 = 0
    v2 = (idx[i + 1]) // 2
    v2 -= 1
    acc += idx[i]
    for k0 in range(0, idx.shape[0], cuda.gridsize(1)):
        acc += idx[k0]
    if 0 <= v0 < a.shape[0]:
        acc += a[v0]
    for k2 in range(max(v1 + 1, -12), out.shape[0] + 1, cuda.gridsize(1)):
        k2 += 2
        k2 = idx[-cuda.threadIdx.x]
    if 0 <= 2 * i < a.shape[0]:
        acc += a[2 * i]
    for k0 in range(max(v0, -12), b.shape[1]):
        for k1 in range(max(v2, -12), a.shape[0]):
            acc += a[k1 + 1]
            for k2 in range(0, idx.shape[0] + 1, cuda.gridsize(1)):
                acc += idx[k2 - 1]
                acc += idx[k2]
        if 0 <= v0 < idx.shape[0]:
            acc += idx[v0]
        o1[v1] = 1
        if 0 <= v2 < idx.shape[0] and (v2 := v2 + 1) > 0:
            acc += idx[v2]
    acc += idx[v1 - 2]
    for k0 in range(0, out.shape[0] - 1, cuda.gridsize(1)):
        out[k0 - 0] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 948, 'kernel': 'kern948', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (5,), 'int32', 'input')}, {'array': ('b', (3, 5), 'uint8', 'input')}, {'array': ('idx', (6,), 'int32', 'index')}, {'array': ('c', (4,), 'int32', 'index')}, {'array': ('out', (4,), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (5, 4), 'int64', 'private')}, {'array': ('hist', (3,), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
