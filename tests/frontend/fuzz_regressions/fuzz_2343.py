# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 2 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination:  | with every check: line 28 array 'src': index 2 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 28 array 'src': index 2 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 28 array 'src': index 2 axis 0 size 1 thread (2, 0, 0) block (0, 0, 0); line 28 array 'src': 
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    for t in range(src.shape[0]):
        r += src[t + q]
    for t in range(src.shape[0]):
        dst[t] = 1
    return r + p

@safekern.jit
def kern2343(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = max(-2, i)
    v1 = 0
    v2 = 0
    for k1 in range(1, src.shape[0] + 1, cuda.gridsize(1)):
        if k1 < b.shape[0] or ((v1) // 3) // 3 > 0:
            k1 += 1
    if 0 <= v1 < src.shape[0] and (v1 := v1 + 2) > 0:
        acc += src[v1]
    priv[t0, v1] += max(t0, v0) - cuda.blockIdx.x + 2
    if v0 >= 0 and v0 < dst.shape[0]:
        dst[v0] = 1
    if 3 * t0 + 2 <= b.shape[0]:
        return
    res[t0] = acc



FUZZ_CASE = {'seed': 2343, 'kernel': 'kern2343', 'griddim': (1,), 'blockdim': (5,), 'params': [{'array': ('a', (4,), 'int32', 'input')}, {'array': ('b', (3, 6), 'int16', 'input')}, {'array': ('idx', (6,), 'int32', 'index')}, {'array': ('c', (1,), 'int32', 'index')}, {'array': ('out', (6, 2, 2), 'int32', 'output')}, {'array': ('o1', (8,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (5, 4), 'int64', 'private')}, {'array': ('hist', (1,), 'int64', 'hist')}, {'array': ('res', (5,), 'int64', 'result')}, {'scalar': ('n', 3, 'int')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', 3.5, 'float')}]}
