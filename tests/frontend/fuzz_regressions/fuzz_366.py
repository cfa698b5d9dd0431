# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination:  | with every check: line 28 array 'dst': index 6 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0); line 28 array 'dst': index 6 axis 0 size 6 thread (0, 1, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern366(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 1 + x
    src = c
    dst = o2
    acc = 0
    v0 = cuda.threadIdx.y + 2
    v1 = 0
    v2 = 0
    loc = cuda.local.array(5, int64)
    for q in range(5):
        loc[q] = 2 * q
    w1 = 0
    while w1 < 3 and (t0 - 3 != -1):
        w1 += 1
        for k1 in range(t0, out.shape[0], 3):
            if t0 - 1 > src.shape[0]:
                return
            acc += src[t0 - 1]
            if x + 2 < out.shape[0]:
                acc += a[w1 - 1, a.shape[1] - 1 - y]
                if 0 <= v2 < dst.shape[0] and (v2 := v2 + 2) > 0:
                    dst[v2] = 1
            if y > 5:
                k1 += 1
            if min(a.shape[0], x) < b.shape[0]:
                break
        acc += src[idx[idx.shape[0] - 1 - w1]]
        o1[o1.shape[0] - 1 - t0] = 1
    if 0 <= v0 - 1 and v0 - 1 < xf:
        o1[v0 - 1] = 1
    if 0 <= t0 + 2 < b.shape[0]:
        return
    if not (v0 >= o1.shape[0]):
        return
    acc += loc[5 - 2]
    if v1 >= 0 and v1 < o1.shape[0]:
        acc += loc[1]
        loc[5] = -1 * b.shape[0] - 3
        if not ((y) // 3 >= 5):
            if 0 <= t0 + 1 < out.shape[0]:
                priv[t0, 4] += x
            else:
                v0 = idx[2]
            if t0 < 0 or t0 >= src.shape[0]:
                return
            acc += src[t0]
    else:
        for k0 in range(0, min(n, 12), 3):
            dst[k0 - 0] = 1
            dst[k0 - 1] = 1
    if True:
        acc += b[2 * y]
        if 0 <= v1 and v1 < xf:
            dst[v1] = 1
            if y > src.shape[0]:
                return
            acc += src[y]
    acc += loc[y - t0]
    v1 = cuda.threadIdx.x
    res[t0] = acc



FUZZ_CASE = {'seed': 366, 'kernel': 'kern366', 'griddim': (1, 1), 'blockdim': (1, 3), 'params': [{'array': ('a', (3, 6), 'int32', 'input')}, {'array': ('b', (5,), 'int32', 'input')}, {'array': ('idx', (4,), 'int64', 'index')}, {'array': ('c', (2,), 'int64', 'index')}, {'array': ('out', (6,), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (3, 4), 'int64', 'private')}, {'array': ('hist', (1, 0), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', 7, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
