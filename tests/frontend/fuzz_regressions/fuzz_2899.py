# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination: line 25 array 'idx': index 2 axis 0 size 2 thread (2, 0, 0) block (0, 0, 0); line 38 array 'idx': index 2 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0) | with every check: line 25 array 'idx': index 2 axis 0 size 2 thread (2, 0, 0) block (0, 0, 0); line 50 array 'idx': in
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern2899(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = cuda.threadIdx.x
    v2 = 0
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    v2 = min((cuda.blockIdx.x) // 4, idx.shape[0])
    v0 = t0
    if t0 < 0 or t0 >= dst.shape[0]:
        return
    v2 = cuda.threadIdx.x
    dst[t0] = 1
    for k2 in range(min(v2, 12)):
        priv[t0, cuda.threadIdx.x] = idx[v1]
        v2 = o1.shape[0] - 3
        if not (t0 >= b.shape[0]):
            acc += b[t0]
            for k1 in range(cuda.grid(1), out.shape[1], cuda.gridsize(1)):
                priv[t0, 0] = cuda.blockDim.x - 1 - 3
                if k2 < 0 or k2 >= o1.shape[0]:
                    return
                o1[k2] = 1
                if t0 <= src.shape[0] - 1:
                    acc += src[t0]
                    v2 -= 1
    for k2 in range(max(v2, -12), out.shape[2] + 1):
        k2 = idx[i + i]
    if 0 <= v0 + 2 < 2:
        if True:
            acc += loc[v1 + 1]
        acc += b[v0]
        if i + 1 > a.shape[0]:
            return
        acc += a[i + 1, cuda.threadIdx.x, cuda.threadIdx.x - 1]
    else:
        priv[t0, cuda.threadIdx.x] = v0
    cuda.atomic.add(hist, (v1, v2), 1)
    if 0 <= v2 < idx.shape[0] and (v2 := v2 + 3) > 0:
        acc += idx[v2]
    res[t0] = acc



FUZZ_CASE = {'seed': 2899, 'kernel': 'kern2899', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (4, 2, 6), 'uint8', 'input')}, {'array': ('b', (2,), 'uint8', 'input')}, {'array': ('idx', (2,), 'int32', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (1, 4, 4), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (6, 5), 'int64', 'private')}, {'array': ('hist', (1, 5), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
