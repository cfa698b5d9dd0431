# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 39 array 'o1': index 3 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern1426(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = i
    loc = cuda.local.array(3, int64)
    for q in range(3):
        loc[q] = 2 * q
    v0 = i
    v1 = idx[t0]
    v0 = n
    for k1 in range(cuda.threadIdx.x, src.shape[0]):
        v2 = (v1) // 4
        if -1 < i and i <= o1.shape[0] - 1:
            o1[i] = 1
        if 3 * v1 == m:
            if max(n, a.shape[0]) < n:
                out[out.shape[0] - 1, k1, cuda.threadIdx.x] = 1
                acc += b[idx[t0 + 1]]
            else:
                if b.shape[0] + 1 <= idx[v0 - 1]:
                    break
                if 1 < m:
                    continue
            k1 = cuda.threadIdx.x
    src = idx
    if i < a.shape[0]:
        acc += a[i]
    if 0 <= v0 < o1.shape[0] and (v0 := v0 + 2) > 0:
        o1[v0] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1426, 'kernel': 'kern1426', 'griddim': (1,), 'blockdim': (1,), 'params': [{'array': ('a', (5,), 'int8', 'input')}, {'array': ('b', (0,), 'int32', 'input')}, {'array': ('idx', (4,), 'uint8', 'index')}, {'array': ('c', (7,), 'int16', 'index')}, {'array': ('out', (1, 1, 1), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (1, 6), 'int64', 'private')}, {'array': ('hist', (6,), 'int64', 'hist')}, {'array': ('res', (1,), 'int64', 'result')}, {'scalar': ('n', 1, 'uint8')}, {'scalar': ('m', 0, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
