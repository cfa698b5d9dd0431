# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 2 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination: line 46 array 'out': index 28 axis 1 size 0 thread (1, 0, 0) block (0, 0, 0) | with every check: line 46 array 'out': index 28 axis 1 size 0 thread (1, 0, 0) block (0, 0, 0); line 34 array 'b': index 2 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 34 array 'b': inde
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if p < src.shape[0] and p >= 0:
        r += src[p]
    if p >= dst.shape[0]:
        return r
    dst[p] = 1
    if p >= dst.shape[0]:
        return r
    dst[p] = 1
    return r + p

@safekern.jit
def kern611(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 3 * m + i
    v1 = idx[-i]
    v2 = -idx[idx.shape[0] - 1 - i]
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    for k2 in range(min(v0, 12), max(v2, -12), -2):
        for k0 in range(cuda.threadIdx.x, cuda.blockDim.x, 2):
            if 0 <= v2 < b.shape[0] and (v2 := v2 + 1) > 0:
                acc += b[v2]
            for k1 in range(i, max(v2, -12), -2):
                loc[2 - 2] = 5
                k2, v0 = v0, k2
                v2 = (v1) // 3
                acc += src[src.shape[0] - 1 - k0]
        dst[v1] = 1
        if v0 - 1 >= dst.shape[0]:
            break
        dst[v0 - 1] = 1
        v0 = 5
    dst = o1
    out[v2, v0, i] = 1
    if v1 < 0 or v1 >= dst.shape[0]:
        return
    dst[v1] = 1
    cuda.atomic.max(hist, cuda.threadIdx.x + 1, 3)
    if 0 <= v0 < idx.shape[0] and (v0 := v0 + 3) > 0:
        acc += idx[v0]
    if True:
        dst[v0] = 1
    for k2 in range(max(n, -12), min(v2, 12)):
        if v0 + 1 < 0 or v0 + 1 >= out.shape[0]:
            return
        out[v0 + 1, v0 - 1, v2 + 1] = 1
        for k1 in range(o1.shape[0] - 1):
            v1 = cuda.threadIdx.x
            for k0 in range(cuda.grid(1), b.shape[0], cuda.gridsize(1)):
                k0 += 2
        if t0 >= 0 and not (t0 >= out.shape[0]) and 0 <= t0 < b.shape[0] and v1 < xf:
            out[t0, t0, v1] = 1
        for k0 in range(i):
            for k1 in range(i, min(n, 12)):
                dst[k1 + 1] = 1
                dst[k1 + 1] = 1
            priv[t0, k0 + 2] += n
            v0 = i
            if v1 > idx.shape[0]:
                return
            acc += idx[v1]
    if i + 1 <= dst.shape[0]:
        dst[i + 1] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 611, 'kernel': 'kern611', 'griddim': (2,), 'blockdim': (2,), 'params': [{'array': ('a', (1, 2, 5), 'int32', 'input')}, {'array': ('b', (2,), 'int32', 'input')}, {'array': ('idx', (2,), 'int32', 'index')}, {'array': ('c', (7,), 'int8', 'index')}, {'array': ('out', (2, 0, 6), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (4, 2), 'int64', 'private')}, {'array': ('hist', (3,), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 6, 'int')}, {'scalar': ('m', 9, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
