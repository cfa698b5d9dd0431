# launch raised IndexError (tid=[2, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 3) with elimination, None () with every check
# failures with elimination:  | with every check: line 35 array 'dst': index 4 axis 0 size 3 thread (0, 0, 0) block (0, 0, 0); line 35 array 'dst': index 4 axis 0 size 3 thread (0, 1, 0) block (0, 0, 0); line 35 array 'dst': index 4 axis 0 size 3 thread (1, 0, 0) block (0, 0, 0); line 35 array 'dst': 
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    dst[q + 1] = 1
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    r = r + 1
    return r + p

@safekern.jit
def kern2796(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 3 + x
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 1
    sm = cuda.shared.array(TILE, int32)
    for q in range(cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x * cuda.blockDim.y):
        sm[q] = q
    cuda.syncthreads()
    loc = cuda.local.array(4, int64)
    for q in range(4):
        loc[q] = 2 * q
    if 0 <= v2 < dst.shape[0] and (v2 := v2 + 3) > 0:
        dst[v2] = 1
    v1 -= 1
    src = c
    if 0 <= v0 < dst.shape[0] and (v0 := v0 + 1) > 0:
        dst[v0] = 1
    dst[v1] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2796, 'kernel': 'kern2796', 'griddim': (1, 1), 'blockdim': (3, 2), 'params': [{'array': ('a', (3, 2), 'int32', 'input')}, {'array': ('b', (2, 5), 'int16', 'input')}, {'array': ('idx', (4,), 'int8', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (3, 1, 3), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (6, 5), 'int64', 'private')}, {'array': ('hist', (4, 2), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 5, 'int')}, {'scalar': ('m', 8, 'int32')}, {'scalar': ('xf', -0.5, 'float')}]}
