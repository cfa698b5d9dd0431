# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination:  | with every check: line 34 array 'src': index 5 axis 0 size 4 thread (0, 0, 0) block (0, 0, 0)
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
    dst[p - 1] = 1
    dst[p - 1] = 1
    return r + p

@safekern.jit
def kern927(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = -cuda.threadIdx.x + 3
    v1 = 0
    v2 = 0
    for k1 in range(idx.shape[0] + 1):
        if idx[(v0) * (v1)] != max((0) % 3, v0):
            return
        k1 += 2
    if 0 <= v0 < src.shape[0] and (v0 := v0 + 2) > 0:
        acc += src[v0]
    for k1 in range(0, src.shape[0] + 1, 2):
        acc += src[k1 + 1]
        acc += src[k1 + 1]
        acc += src[k1]
    for k0 in range(min(v1, 12)):
        for k1 in range(cuda.threadIdx.x):
            if 0 <= v2 + n < dst.shape[0]:
                dst[v2 + n] = 1
                o1[t0] = 1
            acc += b[v2, v1 - src.shape[0]]
            out[3 * v1, 3 * cuda.blockIdx.x, out.shape[2] - 1 - v0] = 1
    if t0 + m < 0 or t0 + m >= b.shape[0]:
        return
    acc += b[t0 + m, v0]
    if idx[v2] >= v0:
        return
    if i >= 0 and i <= out.shape[1] - 1 and v1 + 1 >= 0 and v1 + 1 < out.shape[2]:
        out[cuda.threadIdx.x, i, v1 + 1] = 1
    v2 = d0(src, dst, t0, 2 * (v2) // 2)
    res[t0] = acc



FUZZ_CASE = {'seed': 927, 'kernel': 'kern927', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (3,), 'uint32', 'input')}, {'array': ('b', (5, 2), 'uint32', 'input')}, {'array': ('idx', (4,), 'int16', 'index')}, {'array': ('c', (1,), 'int32', 'index')}, {'array': ('out', (2, 6, 3), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (1, 6), 'int64', 'private')}, {'array': ('hist', (2,), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 2, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
