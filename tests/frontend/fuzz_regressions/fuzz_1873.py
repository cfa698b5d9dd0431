# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 1 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination:  | with every check: line 41 array 'o1': index 1 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern1873(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    *_rest, v2 = out.shape
    sm = cuda.shared.array((TILE, TILE), int32)
    for q in range(cuda.threadIdx.x, TILE * TILE, cuda.blockDim.x):
        sm[q // TILE, q % TILE] = q
    cuda.syncthreads()
    for k1 in range(max(idx[cuda.threadIdx.x - v1], -12), min(idx[max(v1, i)], 12)):
        if -1 < i + 1 and i + 1 < sm.shape[1]:
            acc += sm[2 * v1, i + 1]
            if cuda.threadIdx.x >= 0 and cuda.threadIdx.x < xf:
                acc += idx[cuda.threadIdx.x]
                k1 = v1
    if not (0 <= v2 - 1 < b.shape[0]):
        return
    acc += b[v2 - 1, v0]
    if not (cuda.threadIdx.x + 2 >= idx.shape[0]):
        for k1 in range(max(v0, -12), min(n, 12)):
            priv[t0, v0] += (out.shape[0]) // 2
            acc += idx[k1]
        if 0 <= v2 + 1 + 5 < a.shape[0]:
            for k2 in range(cuda.grid(1), a.shape[0], cuda.gridsize(1)):
                if -1 < v0 + n and not (v0 + n >= o1.shape[0] + 1):
                    o1[v0 + n] = 1
                v2 = idx[3]
                priv[t0, 3 * v1] = idx[v0]
        dst[-v1] = 1
    if 0 <= v1 < o1.shape[0] and (v1 := v1 + 1) > 0:
        o1[v1] = 1
    if cuda.threadIdx.x + 1 >= o1.shape[0]:
        return
    o1[cuda.threadIdx.x + 1] = 1
    v2 = (b.shape[1]) * (t0) - 2
    for k0 in range(min(v1, 12), idx.shape[0], -2):
        if 0 <= dst.shape[0] - 1 - v1 < dst.shape[0]:
            if True:
                acc += src[v2 + m]
            out[v0, v1, cuda.threadIdx.x] = 1
            for k1 in range(0, dst.shape[0] - 0, cuda.gridsize(1)):
                dst[k1 + 1] = 1
                if -1 < v1 and not (v1 >= idx.shape[0]):
                    acc += idx[v1]
                    cuda.atomic.add(hist, (4) % 2, 1)
                k0 += 1
        for k2 in range(max(v0, -12), dst.shape[0]):
            for k1 in range(cuda.threadIdx.x):
                src = idx
                o1[cuda.threadIdx.x] = 1
                if 0 <= i < idx.shape[0]:
                    continue
                dst[dst.shape[0] - 0] = 1
            if 0 <= k2 + n and k2 + n < src.shape[0] and -1 < 2 * v2 and b.shape[1] > 2 * v2:
                acc += b[k2 + n, 2 * v2]
        if 0 <= v0 and o1.shape[0] > v0:
            o1[v0] = 1
    if v0 < xf and v2 < xf and not (v0 - 1 >= out.shape[2]):
        out[v0, v2, v0 - 1] = 1
    cuda.syncthreads()
    v0 += 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1873, 'kernel': 'kern1873', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (4,), 'int64', 'input')}, {'array': ('b', (4, 4), 'int16', 'input')}, {'array': ('idx', (6,), 'uint8', 'index')}, {'array': ('c', (4,), 'int16', 'index')}, {'array': ('out', (4, 6, 3), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (1, 2), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 1, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
