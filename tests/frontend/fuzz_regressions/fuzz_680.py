# launch raised IndexError (tid=[2, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination: line 20 array 'out': index 5 axis 0 size 5 thread (0, 0, 0) block (0, 0, 0); line 31 array 'dst': index 4 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0) | with every check: line 23 array 'out': index 5 axis 0 size 5 thread (2, 0, 0) block (0, 0, 0); line 23 array 'out': in
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern680(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = cuda.threadIdx.x - i - -i
    v1 = i - 2 + cuda.threadIdx.x
    v2 = i
    sm = cuda.shared.array(1024, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    for k2 in range(cuda.threadIdx.x, out.shape[0] + 1, cuda.gridsize(1)):
        out[k2] = 1
        v2 += 1
    if 0 <= v0 < out.shape[0] and (v0 := v0 + 3) > 0:
        out[v0] = 1
    if (-m) * (cuda.blockIdx.x) >= v0:
        if v1 < xf:
            dst[v1] = 1
        priv[t0, m] += 2 * idx.shape[0] - 1
    else:
        priv[t0, -1 * cuda.threadIdx.x] += cuda.threadIdx.x + 1 - 1
    for k1 in range(a.shape[1] + 1):
        dst[v2 + 2] = 1
    v2 = idx.shape[0]
    cuda.syncthreads()
    if 0 <= v0 - 2 < idx.shape[0]:
        for k1 in range(1, min(n, 12)):
            for k2 in range(1, min(n, 12), cuda.gridsize(1)):
                if not (0 <= v0 - 1 < o1.shape[0]):
                    return
                o1[v0 - 1] = 1
            if v2 <= b.shape[1]:
                if not (0 <= v0 < a.shape[0]):
                    break
                acc += a[v0, k1, v2 + n]
                k1 += 2
                if -1 < k1 + 1 and idx.shape[0] > k1 + 1:
                    acc += idx[k1 + 1]
            else:
                priv[t0, k1] = idx[0]
                if -1 < v0 and v0 <= o1.shape[0] - 1:
                    o1[v0] = 1
        if (idx.shape[0] + cuda.threadIdx.x) // 4 == b.shape[1]:
            return
        out[cuda.threadIdx.x + 1] = 1
    if v1 + 1 >= b.shape[0]:
        return
    acc += b[v1 + 1, v2]
    if 0 <= cuda.threadIdx.x < a.shape[0] and 0 <= i < out.shape[0] and 0 <= v0 < a.shape[2]:
        acc += a[cuda.threadIdx.x, i, v0]
        for k2 in range(1, b.shape[0]):
            acc += b[k2, t0]
            acc += b[k2, v1]
            acc += b[k2 - 1, v0 - 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 680, 'kernel': 'kern680', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (3, 5, 4), 'int32', 'input')}, {'array': ('b', (5, 6), 'uint8', 'input')}, {'array': ('idx', (6,), 'uint8', 'index')}, {'array': ('c', (8,), 'uint8', 'index')}, {'array': ('out', (5,), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (5, 2), 'int64', 'private')}, {'array': ('hist', (4, 6), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', -1, 'int')}, {'scalar': ('m', 5, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
