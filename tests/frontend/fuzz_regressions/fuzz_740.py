# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 31 array 'out': index 3 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 31 array 'out': index 3 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0); line 31 array 'out': index 3 axis 0 size 2 thread (2, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit
def kern740(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = i
    v2 = 0
    loc = cuda.local.array(2, int64)
    for q in range(2):
        loc[q] = 2 * q
    cuda.atomic.add(hist, hist.shape[0] - 1 - i, 2)
    loc[m] = -idx[v0]
    acc += loc[v2]
    w1 = 0
    while w1 < 3:
        w1 += 1
        o1[o1.shape[0] - 1 - v1] = 1
        for k0 in range(out.shape[0] - 1):
            out[k0 - 0] = 1
            dst = o2
    if v0 <= b.shape[0]:
        acc += b[v0]
        if 0 <= v2 < out.shape[0] and (v2 := v2 + 3) > 0:
            out[v2] = 1
    v1 = idx[2 * n]
    acc += loc[t0 - 1]
    res[t0] = acc



FUZZ_CASE = {'seed': 740, 'kernel': 'kern740', 'griddim': (1,), 'blockdim': (3,), 'params': [{'array': ('a', (6,), 'int32', 'input')}, {'array': ('b', (2,), 'int8', 'input')}, {'array': ('idx', (3,), 'int32', 'index')}, {'array': ('c', (5,), 'int32', 'index')}, {'array': ('out', (2,), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (3, 4), 'int64', 'private')}, {'array': ('hist', (3,), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', -2, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
