# launch raised IndexError (tid=[2, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 3) with elimination, None () with every check
# failures with elimination: line 47 array 'loc': index -7 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 47 array 'loc': index -7 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0); line 47 array 'loc': index -7 axis 0 size 2 thread (3, 0, 0) block (0, 0, 0); line 47 array 'loc': index -7 axis 0 si
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if r < src.shape[0]:
        r += src[r]
    if q < src.shape[0] and q >= 0:
        r += src[q]
    for t in range(src.shape[0]):
        dst[t] = 1
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    if r >= dst.shape[0]:
        return r
    dst[r] = 1
    if r < src.shape[0]:
        r += src[r]
    return r + p

@safekern.jit
def kern1576(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = idx[1] - 5
    v1 = 6
    v2 = i + i - i
    sm = cuda.shared.array(1024, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    for k0 in range(i, -1, -1):
        for k1 in range(src.shape[0] + 1):
            if 0 <= v2 < src.shape[0] and (v2 := v2 + 1) > 0:
                acc += src[v2]
            acc += loc[v0]
            for k2 in range(1, src.shape[0] - 1):
                if idx.shape[0] - 1 < m:
                    k2 += 1
        if -1 < v0 and dst.shape[0] > v0:
            dst[v0] = 1
        v2 = cuda.blockDim.x + 2 + 1
    dst = o1
    acc += src[v0]
    v2 = d1(src, dst, v0 - 1, cuda.blockIdx.x)
    acc += a[a.shape[0] - 1 - v1, t0]
    if 4 < o1.shape[0] or cuda.threadIdx.x - 2 + 3 > 1:
        v2 = m + 2
    if v1 - 1 < m:
        return
    cuda.syncthreads()
    v0 = i
    if not (0 <= cuda.threadIdx.x - 1 < idx.shape[0]):
        return
    acc += idx[cuda.threadIdx.x - 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 1576, 'kernel': 'kern1576', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (5, 4), 'int32', 'input')}, {'array': ('b', (6,), 'int32', 'input')}, {'array': ('idx', (4,), 'int32', 'index')}, {'array': ('c', (3,), 'int64', 'index')}, {'array': ('out', (2, 3), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (10, 3), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', 0, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
