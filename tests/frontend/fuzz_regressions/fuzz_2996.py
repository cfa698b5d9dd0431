# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination: line 17 array 'src': index 3 axis 0 size 3 thread (2, 0, 0) block (0, 0, 0) | with every check: line 17 array 'src': index 3 axis 0 size 3 thread (2, 0, 0) block (0, 0, 0); line 23 array 'b': index 6 axis 0 size 6 thread (1, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern2996(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o1
    acc = 0
    v0 = cuda.threadIdx.x + 1 + o1.shape[0]
    v1 = cuda.threadIdx.x
    v2 = 0
    if i + m > src.shape[0]:
        return
    acc += src[i + m]
    v1 = (2 - src.shape[0]) % 2
    if 0 <= v0 < o1.shape[0]:
        o1[v0] = 1
        dst[cuda.threadIdx.x] = 1
    if 0 <= v0 < b.shape[0] and (v0 := v0 + 3) > 0:
        acc += b[v0]
    res[t0] = acc



FUZZ_CASE = {'seed': 2996, 'kernel': 'kern2996', 'griddim': (1,), 'blockdim': (3,), 'params': [{'array': ('a', (6, 1), 'int32', 'input')}, {'array': ('b', (6,), 'int64', 'input')}, {'array': ('idx', (6,), 'int16', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (2, 4), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (6,), 'int32', 'output')}, {'array': ('priv', (3, 5), 'int64', 'private')}, {'array': ('hist', (1, 6), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', 1, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
