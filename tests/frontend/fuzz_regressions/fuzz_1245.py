# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 8 is out of bounds for axis 0 with size 7) with elimination, None () with every check
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern1245(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = a.shape[2]
    v2 = i
    for k2 in range(0, min(n, 12), 3):
        if 0 <= cuda.threadIdx.x and not (cuda.threadIdx.x >= out.shape[0]) and -1 < k2 and out.shape[1] > k2 and v0 < out.shape[2]:
            out[cuda.threadIdx.x, k2, v0] = 1
        cuda.atomic.add(hist, k2, 2)
        for k1 in range(src.shape[0]):
            if 0 <= v2 < idx.shape[0] and (v2 := v2 + 2) > 0:
                acc += idx[v2]
            cuda.atomic.add(hist, 3 * o1.shape[0], 3)
    cuda.atomic.add(hist, v1 + 1, 1)
    res[t0] = acc



FUZZ_CASE = {'seed': 1245, 'kernel': 'kern1245', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (2, 6, 1), 'uint32', 'input')}, {'array': ('b', (5,), 'uint8', 'input')}, {'array': ('idx', (7,), 'int8', 'index')}, {'array': ('c', (7,), 'uint8', 'index')}, {'array': ('out', (1, 1, 1), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (1, 5), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 2, 'int')}, {'scalar': ('m', 8, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
