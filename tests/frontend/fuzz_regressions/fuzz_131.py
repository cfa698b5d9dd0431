# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination: line 54 array 'priv': index 5 axis 1 size 2 thread (3, 0, 0) block (0, 0, 0) | with every check: line 54 array 'priv': index 5 axis 1 size 2 thread (3, 0, 0) block (0, 0, 0); line 49 array 'idx': index 4 axis 0 size 4 thread (0, 0, 0) block (0, 0, 0); line 49 array 'idx': 
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if q < src.shape[0] and q >= 0:
        r += src[q]
    dst[p] = 1
    return r + p

@safekern.jit
def kern131(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    sm = cuda.shared.array(1024, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    acc += idx[-1]
    if 2 * i - 2 >= v1:
        for k1 in range(max(v0 + m, -12), src.shape[0] + 1, cuda.gridsize(1)):
            if 0 <= v0 < dst.shape[0] and (v0 := v0 + 2) > 0:
                dst[v0] = 1
            acc += src[k1]
            acc += b[6]
        for k1 in range(dst.shape[0] - 0):
            src = idx
        acc += idx[v2]
    v2 = (m) // 4
    cuda.atomic.add(hist, v0 - 1, 2)
    for k0 in range(out.shape[0]):
        if not (0 <= t0 + 1 < src.shape[0]):
            continue
        acc += src[t0 + 1]
        k0, v0 = v0, k0
        for k1 in range(1, idx.shape[0], cuda.gridsize(1)):
            acc += idx[k1]
            acc += idx[k1 - 1]
            src = idx
        if 0 <= v1 < idx.shape[0] and (v1 := v1 + 1) > 0:
            acc += idx[v1]
    if True:
        acc += src[v2 - 1]
        v2 = -idx[i]
    src = c
    priv[t0, cuda.threadIdx.x + 2] = -3 - 1
    res[t0] = acc



FUZZ_CASE = {'seed': 131, 'kernel': 'kern131', 'griddim': (1,), 'blockdim': (4,), 'params': [{'array': ('a', (5, 1), 'int32', 'input')}, {'array': ('b', (5,), 'int16', 'input')}, {'array': ('idx', (4,), 'int64', 'index')}, {'array': ('c', (3,), 'int16', 'index')}, {'array': ('out', (6, 4, 6), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (4, 2), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 255, 'uint8')}, {'scalar': ('m', 7, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
