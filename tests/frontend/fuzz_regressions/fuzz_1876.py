# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination: line 25 array 'idx': index -3 axis 0 size 2 thread (4, 0, 0) block (0, 0, 0); line 27 array 'out': index 10 axis 0 size 6 thread (1, 0, 0) block (0, 0, 0); line 27 array 'out': index 10 axis 0 size 6 thread (3, 0, 0) block (0, 0, 0) | with every check: line 25 array 'idx':
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if r >= dst.shape[0]:
        return r
    dst[r] = 1
    if r < src.shape[0] and r >= 0:
        r += src[r]
    return r + p

@safekern.jit
def kern1876(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = (3 * cuda.threadIdx.x) % 3
    v1 = cuda.threadIdx.x - 3
    v2 = i
    v1 = d0(src, dst, -v0 + idx[idx.shape[0] - 1 - i], m)
    for k1 in range(out.shape[1] - 0):
        out[v1, k1 - 1] = 1
        out[cuda.threadIdx.x - 1, k1 - 1] = 1
        out[i, k1] = 1
    if 0 <= v1 < b.shape[0] and (v1 := v1 + 2) > 0:
        acc += b[v1]
    for k2 in range(cuda.grid(1), dst.shape[0], cuda.gridsize(1)):
        v0 = t0
    dst = o1
    v2 = d0(src, dst, v1 + n - 2, idx[v0])
    cuda.atomic.add(hist, hist.shape[0] - 1, 2)
    res[t0] = acc



FUZZ_CASE = {'seed': 1876, 'kernel': 'kern1876', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (2,), 'int32', 'input')}, {'array': ('b', (4,), 'int32', 'input')}, {'array': ('idx', (2,), 'int16', 'index')}, {'array': ('c', (6,), 'int32', 'index')}, {'array': ('out', (6, 3), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (10, 6), 'int64', 'private')}, {'array': ('hist', (0,), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', 9223372036854775807, 'int64')}, {'scalar': ('xf', 2.5, 'float')}]}
