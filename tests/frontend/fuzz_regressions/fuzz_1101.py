# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination:  | with every check: line 26 array 'src': index 4 axis 0 size 4 thread (0, 0, 0) block (0, 0, 0); line 26 array 'src': index 4 axis 0 size 4 thread (1, 0, 0) block (0, 0, 0); line 26 array 'src': index 5 axis 0 size 4 thread (2, 0, 0) block (0, 0, 0); line 26 array 'src': 
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit
def kern1101(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = cuda.threadIdx.x - cuda.grid(1)
    v1 = 0
    v2 = 0
    if True:
        dst[v2 - 1] = 1
        for k0 in range(min(n, 12)):
            out[k0] = 1
            out[k0] = 1
    cuda.atomic.add(hist, -1 * t0, 1)
    if 2 * idx[idx.shape[0] - 1] == -(cuda.threadIdx.x) % 3:
        return
    for k0 in range(t0, b.shape[1] + 1):
        for k1 in range(1, src.shape[0] - 1):
            k1 = max(v0, k0) + 3
            acc += src[k1]
            v2 = t0 - 3 + (i) % 3
        k0 -= 1
    acc += a[b.shape[0] + 2]
    v1 = n
    src = idx
    for k1 in range(min(n, 12)):
        v0 -= 2
        if 0 <= -1 < src.shape[0]:
            k1 += 1
        acc += a[k1 + 1]
    for k1 in range(b.shape[1] - 1):
        acc += b[v0, k1 + 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 1101, 'kernel': 'kern1101', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (2,), 'int32', 'input')}, {'array': ('b', (2, 4), 'uint8', 'input')}, {'array': ('idx', (4,), 'int64', 'index')}, {'array': ('c', (1,), 'uint8', 'index')}, {'array': ('out', (5,), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (6, 2), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 4, 'int')}, {'scalar': ('m', 254, 'uint8')}, {'scalar': ('xf', -0.5, 'float')}]}
