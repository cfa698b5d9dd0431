# array argument 6 differs
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    r = r + 2
    for t in range(dst.shape[0]):
        dst[t] = 1
    if r < src.shape[0] and r >= 0:
        r += src[r]
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    if r < src.shape[0] and r >= 0:
        r += src[r]
    if r >= dst.shape[0]:
        return r
    dst[r] = 1
    return r + p

@safekern.jit
def kern608(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 3 + x
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    *_rest, v2 = out.shape
    loc = cuda.local.array(5, int64)
    for q in range(5):
        loc[q] = 2 * q
    o1[v0 - 2] = 1
    v1 = min(n, v2) + 3
    v1 = d0(src, dst, y + idx[v2], 1)
    if v2 < xf and v2 >= 0 and not (v2 >= b.shape[1]):
        acc += b[v2, v2]
    v2 = d1(src, dst, (max(y, x)) % 2, a.shape[1])
    for k2 in range(out.shape[1] - 1):
        out[v0 + m, k2] = 1
        out[x + 1, k2 + 1] = 1
        out[2 * v0, k2 - 1] = 1
    if y < idx.shape[0]:
        acc += idx[y]
        if not (0 <= v2 < b.shape[0]):
            return
        acc += b[v2, y]
    if (cuda.blockDim.x) // 3 <= 5:
        out[-1, y] = 1
        o1[v1] = 1
        for k0 in range(5):
            k0, v2 = v2, k0
    acc += idx[idx.shape[0] - 1 - v0]
    res[t0] = acc



FUZZ_CASE = {'seed': 608, 'kernel': 'kern608', 'griddim': (1, 1), 'blockdim': (3, 2), 'params': [{'array': ('a', (4, 6, 1), 'int16', 'input')}, {'array': ('b', (3, 4), 'uint32', 'input')}, {'array': ('idx', (3,), 'int16', 'index')}, {'array': ('c', (3,), 'uint32', 'index')}, {'array': ('out', (4, 6), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (6, 1), 'int64', 'private')}, {'array': ('hist', (3,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', -1, 'int')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
