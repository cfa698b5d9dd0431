# launch raised ValueError (None disallowed in expression list) with elimination, None () with every check
# failures with elimination:  | with every check: line 33 array 'o1': index 6 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0); line 13 array 'idx': index 1 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 13 array 'idx': index 2 axis 0 size 1 thread (2, 0, 0) block (0, 0, 0); line 13 array 'idx': i
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern333532(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = idx[i] - 1
    v2 = (cuda.threadIdx.x - 4) % 3
    v0 = n
    for k2 in range(b.shape[0] - 1, 5, -1):
        for k1 in range(out.shape[0]):
            out[k1 - 1] = 1
            out[k1 - 0] = 1
            k1, v1 = v1, k1
        v2 -= 2
        if 0 <= cuda.threadIdx.x + 1 and cuda.threadIdx.x + 1 < b.shape[0]:
            acc += b[cuda.threadIdx.x + 1]
            if 0 <= v1 and v1 < xf:
                out[v1] = 1
                priv[t0, 3] += 3 * 4 + cuda.threadIdx.x
        if v2 >= 0 and v2 < v2 and v2 <= b.shape[0]:
            acc += b[v2]
    priv[t0, t0] += cuda.threadIdx.x + 3
    for k0 in range(1, o1.shape[0] + 1, 2):
        o1[k0] = 1
        cuda.atomic.add(hist, -1, 1)
        o1[k0 + 1] = 1
    if v1 - 1 < xf:
        o1[v1 - 1] = 1
    for k0 in range(1, o1.shape[0] + 1):
        o1[k0] = 1
        o1[k0] = 1
    for k1 in range(i, min(n, 12), 2):
        if 0 <= out.shape[0] - 1 - v2 < out.shape[0]:
            for k2 in range(cuda.grid(1), o1.shape[0], cuda.gridsize(1)):
                o1[cuda.blockDim.x - v2] = 1
            if a.shape[0] - 2 >= a.shape[0]:
                if i < n:
                    k1 += 1
                if cuda.threadIdx.x < out.shape[0]:
                    out[cuda.threadIdx.x] = 1
            for k0 in range(t0, idx.shape[0] - t0, 2):
                acc += idx[k0 - t0]
                k1 -= 1
        if i + 2 > ((5) * (idx.shape[0])) // 3:
            break
    v2 = -min(0, n)
    if cuda.threadIdx.x >= o1.shape[0]:
        return
    o1[cuda.threadIdx.x] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 333532, 'kernel': 'kern333532', 'griddim': (2,), 'blockdim': (4,), 'params': [{'array': ('a', (3, 1), 'int32', 'input')}, {'array': ('b', (5,), 'int64', 'input')}, {'array': ('idx', (1,), 'int8', 'index')}, {'array': ('c', (8,), 'uint32', 'index')}, {'array': ('out', (3,), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (8, 2), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 4294967295, 'uint32')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
