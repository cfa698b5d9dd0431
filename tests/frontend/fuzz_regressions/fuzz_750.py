# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 2 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination: line 34 array 'priv': index 3 axis 1 size 1 thread (1, 0, 0) block (0, 0, 0) | with every check: line 34 array 'priv': index 3 axis 1 size 1 thread (1, 0, 0) block (0, 0, 0); line 27 array 'src': index 2 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern750(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = -max(5, m)
    v1 = max((cuda.threadIdx.x) % 2, (cuda.threadIdx.x) * (2))
    v2 = idx.shape[0]
    acc += src[i - 1]
    if -1 < v2 and v2 <= b.shape[1]:
        acc += b[t0, v2]
    if t0 < src.shape[0]:
        for k1 in range(max(idx[-1 * cuda.threadIdx.x], -12), min(idx[v1 - 1], 12)):
            for k2 in range(-1, out.shape[2] - -1):
                k1 -= 2
            k1 = idx[idx.shape[0] - 1 - t0]
        if 0 <= cuda.threadIdx.x and cuda.threadIdx.x <= idx.shape[0] - 1:
            acc += idx[cuda.threadIdx.x]
            cuda.atomic.max(hist, t0 - 1, 1)
        if 0 <= v1 < src.shape[0] and (v1 := v1 + 2) > 0:
            acc += src[v1]
    else:
        acc += src[t0]
        v2 = m
    if not (0 <= i < o1.shape[0]):
        return
    o1[i] = 1
    priv[t0, v2] = (i) % 4
    if t0 == t0:
        if 0 <= v2 < src.shape[0] and (v2 := v2 + 1) > 0:
            acc += src[v2]
    else:
        v0 += 2
    cuda.atomic.max(hist, v2, 3)
    if o1.shape[0] > v2:
        o1[v2] = 1
        v2 = idx[i]
    res[t0] = acc



FUZZ_CASE = {'seed': 750, 'kernel': 'kern750', 'griddim': (1,), 'blockdim': (2,), 'params': [{'array': ('a', (1, 6), 'uint8', 'input')}, {'array': ('b', (4, 1), 'int16', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (2,), 'uint32', 'index')}, {'array': ('out', (5, 5, 5), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (2, 1), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', 1, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
