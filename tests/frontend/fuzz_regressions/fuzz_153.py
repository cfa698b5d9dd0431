# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination:  | with every check: line 32 array 'o1': index 5 axis 0 size 5 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern153(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = 0
    v1 = a.shape[0] - cuda.threadIdx.x + 4 + cuda.threadIdx.x
    v2 = 0
    sm = cuda.shared.array(1024, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    if 0 <= v1 < src.shape[0]:
        acc += src[v1]
        if cuda.blockIdx.x >= 0 and cuda.blockIdx.x < o1.shape[0]:
            for k0 in range(1, o1.shape[0] - 1):
                o1[k0] = 1
                k0 += 1
            if 0 <= i + 1 and i + 1 < dst.shape[0]:
                dst[i + 1] = 1
            o1[v1] = 1
    if 0 <= 2 * i and 2 * i < idx.shape[0]:
        acc += idx[2 * i]
    for k0 in range(min(n, 12)):
        if 0 <= v2 < o1.shape[0] and (v2 := v2 + 1) > 0:
            o1[v2] = 1
    if i + 1 < out.shape[0]:
        return
    for k0 in range(a.shape[1] - 0):
        k0 += 1
        k0 += 1
    dst = o2
    cuda.atomic.add(hist, v0, 3)
    if -v0 < src.shape[0] or v0 + 3 + v1 - cuda.threadIdx.x > 2:
        return
    res[t0] = acc



FUZZ_CASE = {'seed': 153, 'kernel': 'kern153', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (4, 5), 'int8', 'input')}, {'array': ('b', (5, 6), 'int64', 'input')}, {'array': ('idx', (4,), 'uint32', 'index')}, {'array': ('c', (2,), 'uint8', 'index')}, {'array': ('out', (6,), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (1, 6), 'int64', 'private')}, {'array': ('hist', (2,), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 8, 'int')}, {'scalar': ('m', 8, 'uint32')}, {'scalar': ('xf', 3.5, 'float')}]}
