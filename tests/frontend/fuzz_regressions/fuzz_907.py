# array argument 5 differs
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if q < src.shape[0]:
        r += src[q]
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    for t in range(src.shape[0]):
        dst[t] = 1
    if r < src.shape[0]:
        r += src[r]
    return r + p

@safekern.jit
def kern907(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = cuda.threadIdx.x - 3
    v1 = 0
    v2 = (cuda.threadIdx.x - 2) * (cuda.threadIdx.x - 1)
    *_rest, v2 = out.shape
    sm = cuda.shared.array(TILE, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    acc += a[3, a.shape[1] - 2]
    for k1 in range(cuda.grid(1), a.shape[1], cuda.gridsize(1)):
        acc += loc[k1 + 1]
        v1 = idx[v2]
        k1 -= 1
        if idx.shape[0] != -m:
            continue
    if 0 <= v1 < dst.shape[0] and v2 <= b.shape[1] - 1:
        acc += b[v1, v2]
    for k1 in range(min(v1, 12), -1, -2):
        v2 = d0(src, dst, max((cuda.threadIdx.x) % 3, idx[k1 + 2]), -2 - 2)
        for k0 in range(cuda.grid(1), src.shape[0], cuda.gridsize(1)):
            priv[t0, priv.shape[1] - 1] += i
            w1 = 0
            while w1 < 4 and (idx[k0] - 1 < sm.shape[0] or -i + 2 > 2):
                w1 += 1
                if i == 2:
                    break
                if 0 <= t0 < o1.shape[0]:
                    o1[t0] = 1
            for k2 in range(7, src.shape[0] - 7):
                if i <= o1.shape[0]:
                    continue
            if k1 - 1 <= src.shape[0]:
                acc += src[k1 - 1]
                if (v1) * (k1) + 1 >= 0 and (v1) * (k1) + 1 < sm.shape[0]:
                    continue
        k1, v0 = v0, k1
        if i >= 0 and i < sm.shape[0]:
            for k2 in range(max(v1, -12), out.shape[0] + 1):
                out[k2, 2 * v0, i + m] = 1
                out[k2 - v1, k2, t0 + 1] = 1
            v1 = t0 + v2 - 1
            for k0 in range(out.shape[2] + 1):
                v1 = cuda.blockIdx.x
                v2 = d1(src, dst, t0, (k0 - 1) // 2)
                acc += src[src.shape[0] - 2]
        else:
            v2 = (idx[k1]) % 3
            priv[t0, i] = -i + 3
    if t0 - 1 < 0 or t0 - 1 >= o1.shape[0]:
        return
    o1[t0 - 1] = 1
    if v0 + 1 < out.shape[0]:
        src = c
    else:
        for k1 in range(a.shape[0] + 1):
            k1 -= 2
            if v2 >= 0 and v2 < sm.shape[0]:
                dst[-1] = 1
            if k1 >= 0 and k1 <= src.shape[0] - 1:
                acc += src[k1]
    cuda.syncthreads()
    src = c
    if v1 < src.shape[0]:
        acc += src[v1]
    res[t0] = acc



FUZZ_CASE = {'seed': 907, 'kernel': 'kern907', 'griddim': (1,), 'blockdim': (2,), 'params': [{'array': ('a', (4, 2), 'int64', 'input')}, {'array': ('b', (3, 1), 'int32', 'input')}, {'array': ('idx', (7,), 'int64', 'index')}, {'array': ('c', (4,), 'uint8', 'index')}, {'array': ('out', (2, 5, 1), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (2, 6), 'int64', 'private')}, {'array': ('hist', (6,), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 3, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
