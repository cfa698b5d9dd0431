# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination: line 21 array 'a': index 3 axis 0 size 3 thread (0, 0, 0) block (0, 0, 0); line 21 array 'a': index 5 axis 0 size 3 thread (2, 0, 0) block (0, 0, 0) | with every check: line 30 array 'o1': index 6 axis 0 size 6 thread (3, 0, 0) block (0, 0, 0); line 21 array 'a': index 3 a
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern1148(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = (cuda.threadIdx.x) % 3
    v1 = 0
    v2 = i
    loc = cuda.local.array(5, int64)
    for q in range(5):
        loc[q] = 2 * q
    v1 = min(v0, -cuda.grid(1))
    if idx[i - 1] < 5:
        if 0 <= v0 < a.shape[0] and (v0 := v0 + 3) > 0:
            acc += a[v0, 0, 0]
        if 0 <= 2 * v2 < src.shape[0] + 1:
            acc += src[2 * v2]
    loc[1] = i - 2 - (v1) // 4
    src = c
    if 0 <= cuda.threadIdx.x - 1 < out.shape[0] and 0 <= v1 + n < out.shape[1]:
        out[cuda.threadIdx.x - 1, v1 + n] = 1
    acc += loc[m]
    if 0 <= v2 < o1.shape[0] and (v2 := v2 + 3) > 0:
        o1[v2] = 1
    for k0 in range(0, b.shape[0], 2):
        acc += b[k0 - 0]
    res[t0] = acc



FUZZ_CASE = {'seed': 1148, 'kernel': 'kern1148', 'griddim': (1,), 'blockdim': (4,), 'params': [{'array': ('a', (3, 3, 2), 'int8', 'input')}, {'array': ('b', (1,), 'int16', 'input')}, {'array': ('idx', (5,), 'int16', 'index')}, {'array': ('c', (6,), 'int16', 'index')}, {'array': ('out', (6, 3), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (4, 4), 'int64', 'private')}, {'array': ('hist', (5, 2), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 9, 'int')}, {'scalar': ('m', -1, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
