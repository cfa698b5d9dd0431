# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination:  | with every check: line 56 array 'idx': index 6 axis 0 size 5 thread (0, 0, 0) block (0, 0, 0); line 56 array 'idx': index 6 axis 0 size 5 thread (1, 0, 0) block (0, 0, 0); line 56 array 'idx': index 6 axis 0 size 5 thread (2, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    dst[r + 1] = 1
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    if p >= dst.shape[0]:
        return r
    dst[p] = 1
    dst[q + 1] = 1
    if q >= dst.shape[0]:
        return r
    dst[q] = 1
    return r + p

@safekern.jit
def kern1998(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    if v2 < m:
        if ((v0) // 2) % 4 > b.shape[0]:
            return
    else:
        acc += idx[idx.shape[0] - 1]
        if 0 <= (-v0) // 3 < idx.shape[0]:
            if 2 * i < o1.shape[0] + 1:
                o1[2 * i] = 1
            v2 = idx[v1]
    v1 = n - 2
    v2 = idx[v1]
    if True:
        out[i] = 1
    for k1 in range(t0, b.shape[0], 3):
        v1 = (-1 - v0) // 3
        v2 = d1(src, dst, 3, i)
    for k2 in range(max(v2 + 1, -12), min(n, 12)):
        acc += a[k2 + 1, v2, k2]
        for k1 in range(b.shape[0]):
            acc += b[k1]
            acc += b[k1]
            acc += b[k1]
    if 0 <= v2 < idx.shape[0] and (v2 := v2 + 3) > 0:
        acc += idx[v2]
    res[t0] = acc



FUZZ_CASE = {'seed': 1998, 'kernel': 'kern1998', 'griddim': (1,), 'blockdim': (3,), 'params': [{'array': ('a', (3, 2, 4), 'int16', 'input')}, {'array': ('b', (5,), 'int64', 'input')}, {'array': ('idx', (5,), 'uint8', 'index')}, {'array': ('c', (5,), 'int32', 'index')}, {'array': ('out', (6,), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (3, 5), 'int64', 'private')}, {'array': ('hist', (2, 4), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', 4, 'uint32')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
