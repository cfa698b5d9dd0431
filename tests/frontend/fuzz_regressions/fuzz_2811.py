# array argument 6 differs
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    for t in range(dst.shape[0]):
        dst[t] = 1
    q = q + 2
    return r + p

@safekern.jit(device=True)
def d1(src, dst, p, q):
    r = 0
    p = p + 2
    dst[r - 1] = 1
    r = r + 2
    return r + p

@safekern.jit
def kern2811(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 1 + x
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    sm = cuda.shared.array(1024, int32)
    for q in range(cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x * cuda.blockDim.y):
        sm[q] = q
    cuda.syncthreads()
    if v0 >= 0 and v0 < b.shape[0]:
        acc += b[v0]
        if 0 <= v2 < out.shape[0] and (v2 := v2 + 2) > 0:
            out[v2, 0] = 1
    src = idx
    if -1 < v0 - 1 and not (v0 - 1 >= a.shape[0]) and a.shape[1] > v2 and not (t0 >= a.shape[2] + 1):
        acc += a[v0 - 1, v2, t0]
    priv[t0, t0] += x + y
    for k0 in range(out.shape[0]):
        out[k0 - 1, 2 * y] = 1
    dst[dst.shape[0] - 1] = 1
    if 0 <= t0 + 1 < src.shape[0]:
        acc += src[t0 + 1]
        for k2 in range(-2, o1.shape[0]):
            v2 = d0(src, dst, m, 3 - idx[-dst.shape[0]])
            if (0) * (x) + -1 * t0 >= 0 and (0) * (x) + -1 * t0 < o1.shape[0]:
                v1 = cuda.blockDim.x
                dst[dst.shape[0] - 1 - v1] = 1
            v0 = d1(src, dst, t0 + 1, -t0)
    o1[v1] = 1
    cuda.syncthreads()
    if 0 <= y < dst.shape[0]:
        dst[y] = 1
    if t0 <= src.shape[0]:
        return
    acc += b[b.shape[0] - 1 - x]
    res[t0] = acc



FUZZ_CASE = {'seed': 2811, 'kernel': 'kern2811', 'griddim': (1, 1), 'blockdim': (1, 3), 'params': [{'array': ('a', (1, 6, 2), 'uint32', 'input')}, {'array': ('b', (3,), 'int32', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (8,), 'int8', 'index')}, {'array': ('out', (3, 3), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (3, 3), 'int64', 'private')}, {'array': ('hist', (1, 5), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', 4, 'int')}, {'scalar': ('m', 4, 'int32')}, {'scalar': ('xf', 3.5, 'float')}]}
