# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination: line 22 array 'hist': index -3 axis 0 size 2 thread (4, 0, 0) block (0, 0, 0) | with every check: line 25 array 'dst': index 5 axis 0 size 5 thread (2, 0, 0) block (0, 0, 0); line 25 array 'dst': index 6 axis 0 size 5 thread (3, 0, 0) block (0, 0, 0); line 22 array 'hist':
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern1662(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = cuda.threadIdx.x - 2 + 2
    v1 = 0
    v2 = cuda.threadIdx.x
    sm = cuda.shared.array((TILE, TILE), int32)
    for q in range(cuda.threadIdx.x, TILE * TILE, cuda.blockDim.x):
        sm[q // TILE, q % TILE] = q
    cuda.syncthreads()
    loc = cuda.local.array(4, int64)
    for q in range(4):
        loc[q] = 2 * q
    cuda.atomic.add(hist, (hist.shape[0] - 1 - t0, t0), 3)
    dst[1] = 1
    if 0 <= v2 < dst.shape[0] and (v2 := v2 + 3) > 0:
        dst[v2] = 1
    v2 = 3 - 1
    v1 = -1 * dst.shape[0] + 3
    res[t0] = acc



FUZZ_CASE = {'seed': 1662, 'kernel': 'kern1662', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (4, 3), 'int32', 'input')}, {'array': ('b', (4, 4), 'int32', 'input')}, {'array': ('idx', (4,), 'int16', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (6, 6), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (10, 2), 'int64', 'private')}, {'array': ('hist', (2, 5), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 6, 'int')}, {'scalar': ('m', 4, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
