# launch raised ValueError (None disallowed in expression list) with elimination, None () with every check
# failures with elimination:  | with every check: line 12 array 'idx': index 2 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 12 array 'idx': index 3 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 12 array 'idx': index 4 axis 0 size 1 thread (2, 0, 0) block (0, 0, 0); line 12 array 'idx': 
from numba import cuda, int32, int64
import safekern
TILE = 1

@safekern.jit
def kern370183(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = idx[cuda.threadIdx.x + 2] - 2
    v1 = cuda.threadIdx.x
    v2 = 0
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    if 0 <= v0 - 1 < idx.shape[0]:
        acc += idx[v0 - 1]
        for k1 in range(max(cuda.threadIdx.x + n, -12), out.shape[0] - 1, 2):
            for k0 in range(dst.shape[0] + 1):
                dst[cuda.blockDim.x + v0] = 1
                if 0 <= v1 and a.shape[0] > v1 and 0 <= v2 + 1 and v2 + 1 < xf and -1 < v1 and v1 < xf:
                    acc += a[v1, v2 + 1, v1]
    w1 = 0
    while w1 < 4:
        w1 += 1
        v1 = m
        if not (v2 >= o1.shape[0]):
            continue
        if t0 + cuda.blockDim.x < dst.shape[0]:
            continue
    loc[v0] = cuda.threadIdx.x - 3
    res[t0] = acc



FUZZ_CASE = {'seed': 370183, 'kernel': 'kern370183', 'griddim': (1,), 'blockdim': (4,), 'params': [{'array': ('a', (5, 2, 2), 'int32', 'input')}, {'array': ('b', (4,), 'int32', 'input')}, {'array': ('idx', (1,), 'int16', 'index')}, {'array': ('c', (3,), 'uint32', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (4, 4), 'int64', 'private')}, {'array': ('hist', (6,), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', 7, 'int64')}, {'scalar': ('xf', 2.5, 'float')}]}
