# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination: line 74 array 'dst': index 3 axis 0 size 2 thread (3, 0, 0) block (0, 0, 0) | with every check: line 73 array 'src': index 5 axis 0 size 5 thread (1, 0, 0) block (0, 0, 0); line 73 array 'src': index 6 axis 0 size 5 thread (2, 0, 0) block (0, 0, 0); line 74 array 'dst': in
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    dst[r] = 1
    dst[r + 1] = 1
    if p < src.shape[0]:
        r += src[p]
    return r + p

@safekern.jit
def kern2059(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = (7) % 2 + cuda.threadIdx.x
    v1 = 0
    v2 = cuda.threadIdx.x + 3 - 1
    sm = cuda.shared.array((TILE, 1), int32)
    for q in range(cuda.threadIdx.x, TILE * 1, cuda.blockDim.x):
        sm[q // 1, q % 1] = q
    cuda.syncthreads()
    loc = cuda.local.array(5, int64)
    for q in range(5):
        loc[q] = 2 * q
    priv[t0, priv.shape[1] - 1 - v0] += src.shape[0]
    for k0 in range(0, a.shape[0] - 1, 2):
        acc += a[k0 + 1, t0]
    for k0 in range(dst.shape[0]):
        dst[k0] = 1
    acc += b[b.shape[0] - 1 - t0]
    for k0 in range(i, 5, -2):
        for k1 in range(max(v2, -12), min(src.shape[0] - v2, 12), 2):
            k0 -= 2
            if -1 < v0 - 1 and v0 - 1 < idx.shape[0]:
                acc += idx[v0 - 1]
        if cuda.threadIdx.x + 1 >= o1.shape[0]:
            return
        o1[cuda.threadIdx.x + 1] = 1
        for k1 in range(1, 5 + 1, cuda.gridsize(1)):
            if cuda.grid(1) < n:
                if v1 < b.shape[0] or -cuda.threadIdx.x > 3:
                    k1 += 1
            k0 -= 1
        w1 = 0
        while w1 < 1 and (v2 < n):
            w1 += 1
            for k1 in range(min(n, 12)):
                acc += loc[k1 - 0]
                loc[k1] = -t0 - 1
                loc[k1] = i
            for k2 in range(o1.shape[0] - 1, -1, -1):
                if t0 >= 0 and t0 < a.shape[0]:
                    acc += sm[t0, k0 + 1]
                if True:
                    acc += b[i + 1]
                if 0 <= k2 < sm.shape[0] and not (k2 >= sm.shape[1]):
                    acc += sm[k2, k2]
                acc += loc[w1 - 1]
            acc += idx[idx.shape[0] - 0]
    acc += a[a.shape[0] - 1 - i, t0]
    cuda.atomic.max(hist, hist.shape[0] - 1 - v0, 1)
    cuda.syncthreads()
    if not (0 <= i < o1.shape[0]):
        return
    o1[i] = 1
    if 0 <= v2 < src.shape[0] and (v2 := v2 + 2) > 0:
        acc += src[v2]
    dst[i] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2059, 'kernel': 'kern2059', 'griddim': (2,), 'blockdim': (4,), 'params': [{'array': ('a', (2, 4), 'int32', 'input')}, {'array': ('b', (2,), 'int32', 'input')}, {'array': ('idx', (5,), 'uint8', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (8, 5), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 8, 'int')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
