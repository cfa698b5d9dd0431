# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 1 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination: line 23 array 'b': index 3 axis 0 size 3 thread (3, 0, 0) block (0, 0, 0) | with every check: line 29 array 'src': index 1 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 29 array 'src': index 1 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 29 array 'src': inde
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern2636(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = i + 3
    v2 = -1 * cuda.threadIdx.x + i
    loc = cuda.local.array(5, int64)
    for q in range(5):
        loc[q] = 2 * q
    v1 = -1 * -2
    for k0 in range(0, a.shape[0], cuda.gridsize(1)):
        priv[t0, v0] = k0
        acc += a[k0 - 0]
    acc += idx[v0]
    acc += b[cuda.threadIdx.x, t0]
    if v1 >= 0 and v1 < a.shape[0]:
        acc += a[v1]
    for k2 in range(max(v1, -12), o1.shape[0]):
        k2 += 1
        if 0 <= v2 < src.shape[0] and (v2 := v2 + 1) > 0:
            acc += src[v2]
        k2 += 2
    if t0 > a.shape[0]:
        for k0 in range(dst.shape[0] - 1):
            if t0 > o1.shape[0]:
                return
            v1 = -v0 + 3
            o1[t0] = 1
            priv[t0, -k0] = n
    for k0 in range(max(v1, -12), out.shape[1]):
        if v2 >= 0 and v2 < idx.shape[0]:
            acc += idx[v2]
        w1 = 0
        while w1 < 4:
            w1 += 1
            v0 -= 1
        acc += b[i + 1, v2]
        v2 = cuda.threadIdx.x + 2
    res[t0] = acc



FUZZ_CASE = {'seed': 2636, 'kernel': 'kern2636', 'griddim': (1,), 'blockdim': (4,), 'params': [{'array': ('a', (3,), 'int32', 'input')}, {'array': ('b', (3, 3), 'uint8', 'input')}, {'array': ('idx', (1,), 'int64', 'index')}, {'array': ('c', (3,), 'int32', 'index')}, {'array': ('out', (2, 6, 3), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (4, 3), 'int64', 'private')}, {'array': ('hist', (2, 4), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', -1, 'int')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
