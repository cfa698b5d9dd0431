# launch raised IndexError (tid=[0, 2, 0] ctaid=[0, 0, 0]: index 2 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination:  | with every check: line 18 array 'o1': index 2 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 18 array 'o1': index 2 axis 0 size 1 thread (0, 1, 0) block (0, 0, 0); line 18 array 'o1': index 2 axis 0 size 1 thread (0, 2, 0) block (0, 0, 0); line 18 array 'o1': inde
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit
def kern273(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = idx[x + 1]
    if 0 <= idx[idx.shape[0] - 2] < o1.shape[0]:
        return
    if 0 <= v0 < o1.shape[0] and (v0 := v0 + 2) > 0:
        o1[v0] = 1
    for k1 in range(cuda.threadIdx.x, o1.shape[0], 3):
        if -k1 + 2 < a.shape[0]:
            priv[t0, min(v2, 7)] = cuda.threadIdx.x
            dst[cuda.threadIdx.x + cuda.threadIdx.y] = 1
        else:
            if 0 <= v0 < out.shape[0] and (v0 := v0 + 2) > 0:
                out[v0, 0, 0] = 1
            if True:
                dst[x] = 1
        cuda.atomic.add(hist, (t0, 3), 1)
        if True:
            acc += src[t0 - 1]
            k1 += 1
    v0 = max(cuda.threadIdx.x, v1)
    res[t0] = acc



FUZZ_CASE = {'seed': 273, 'kernel': 'kern273', 'griddim': (1, 1), 'blockdim': (2, 3), 'params': [{'array': ('a', (2, 1, 5), 'int32', 'input')}, {'array': ('b', (4, 3), 'int32', 'input')}, {'array': ('idx', (6,), 'int64', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (3, 2, 5), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (6, 2), 'int64', 'private')}, {'array': ('hist', (5, 3), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', -2, 'int')}, {'scalar': ('m', 9, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
