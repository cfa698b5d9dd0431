# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 2 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 16 array 'idx': index 2 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern1879(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = b.shape[1] - 1
    v1 = n
    v2 = i
    if 0 <= v1 < idx.shape[0] and (v1 := v1 + 2) > 0:
        acc += idx[v1]
    if v1 - 1 > b.shape[0]:
        return
    if 5 >= out.shape[1]:
        if cuda.threadIdx.x - 2 >= 0 and cuda.threadIdx.x - 2 < dst.shape[0]:
            if v1 >= i:
                return
            if 0 <= v1 and not (v1 >= b.shape[0]) and 0 <= v1 - 1 < b.shape[1] + 1:
                acc += b[v1, v1 - 1]
                if 2 * i >= 0 and 2 * i <= out.shape[0] - 1 and 0 <= v0 and v0 < a.shape[0]:
                    out[2 * i, v0] = 1
            for k2 in range(1, min(n, 12), 2):
                o1[k2 + 1] = 1
                k2 -= 1
    if not (n >= src.shape[0]):
        out[t0 + 2, cuda.threadIdx.x - 3] = 1
        for k2 in range(i, idx.shape[0], 3):
            for k0 in range(max(idx[1], -12), min(idx[n - 3], 12)):
                o1[o1.shape[0] - 1 - v2] = 1
                if -1 < cuda.threadIdx.x and cuda.threadIdx.x < dst.shape[0]:
                    acc += b[cuda.threadIdx.x, v2]
                acc += idx[idx.shape[0] - 1 - k2]
            for k1 in range(dst.shape[0] - 1, -1, -2):
                if 0 <= t0 < b.shape[0]:
                    acc += b[t0, v0]
                    priv[t0, cuda.threadIdx.x] = t0
                if not (v2 + m >= idx.shape[0]):
                    acc += idx[v2 + m]
                dst[0] = 1
                priv[t0, cuda.threadIdx.x] += src.shape[0]
            v1 = -idx[t0 - 2]
        v1 = v1 - 1
    else:
        o1[4] = 1
        v1 += 2
    priv[t0, t0] += (dst.shape[0] - 3) % 2
    priv[t0, v2] = min(cuda.threadIdx.x, m) - 2
    if min(t0 - 3, v1) != (i + 3) // 3:
        return
    res[t0] = acc



FUZZ_CASE = {'seed': 1879, 'kernel': 'kern1879', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (1, 6, 1), 'uint32', 'input')}, {'array': ('b', (4, 5), 'int32', 'input')}, {'array': ('idx', (2,), 'int16', 'index')}, {'array': ('c', (5,), 'int64', 'index')}, {'array': ('out', (1, 5), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (1, 2), 'int64', 'private')}, {'array': ('hist', (2, 4), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 0, 'int')}, {'scalar': ('m', 0, 'uint32')}, {'scalar': ('xf', -0.5, 'float')}]}
