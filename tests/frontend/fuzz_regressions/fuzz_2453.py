# launch raised IndexError (tid=[2, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination: line 32 array 'out': index 3 axis 0 size 3 thread (3, 0, 0) block (0, 0, 0) | with every check: line 28 array 'src': index 6 axis 0 size 5 thread (2, 0, 0) block (0, 0, 0); line 32 array 'out': index 3 axis 0 size 3 thread (3, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if q >= dst.shape[0]:
        return r
    dst[q] = 1
    if p < src.shape[0]:
        r += src[p]
    return r + p

@safekern.jit
def kern2453(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = i
    acc += b[t0 - 2]
    for k2 in range(max(idx[0], -12), min(idx[i + 1], 12)):
        if 0 <= v1 < src.shape[0] and (v1 := v1 + 2) > 0:
            acc += src[v1]
        v2 -= 1
    if t0 > out.shape[0]:
        return
    out[t0, cuda.threadIdx.x] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2453, 'kernel': 'kern2453', 'griddim': (1,), 'blockdim': (4,), 'params': [{'array': ('a', (6,), 'int8', 'input')}, {'array': ('b', (4,), 'int64', 'input')}, {'array': ('idx', (6,), 'int16', 'index')}, {'array': ('c', (5,), 'int32', 'index')}, {'array': ('out', (3, 5), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (4, 4), 'int64', 'private')}, {'array': ('hist', (1,), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 9, 'int')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
