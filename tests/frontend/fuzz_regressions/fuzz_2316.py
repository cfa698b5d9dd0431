# launch raised IndexError (tid=[3, 0, 0] ctaid=[0, 0, 0]: index 254 is out of bounds for axis 0 with size 5) with elimination, OverflowError (tid=[0, 0, 0] ctaid=[0, 0, 0]: Python integer -3 out of bounds for uint8) with every check
# failures with elimination:  | with every check: line 22 array 'b': index 254 axis 0 size 5 thread (3, 0, 0) block (0, 0, 0); line 22 array 'b': index 254 axis 0 size 5 thread (4, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern2316(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = i - 3 + idx[2]
    for k0 in range(t0):
        if idx[v1] + 3 > (-1 * src.shape[0]) // 3:
            k0 += 1
        if min(v1 - v1, n) <= (-src.shape[0]) % 4:
            for k1 in range(t0, b.shape[0]):
                k1 = v2 + 1
                acc += b[k1]
                acc += b[k1 - t0]
            for k1 in range(i, o1.shape[0] + 1):
                o1[k1] = 1
                if k0 >= a.shape[0]:
                    continue
                acc += a[k0, k0 + 1, v0 + 1]
                k0 = cuda.threadIdx.x - v2 - 2
            v0 = v2
    priv[t0, v0] = t0 - t0 + 1
    if 3 - 1 > v0:
        return
    acc += b[b.shape[0] - 1 - v2]
    if v2 + 2 <= o1.shape[0]:
        return
    if src.shape[0] - 2 < src.shape[0] or v1 > 0:
        return
    if t0 + 3 > cuda.threadIdx.x:
        if t0 >= o1.shape[0]:
            return
        o1[t0] = 1
        cuda.atomic.add(hist, (v2 - 2, v0 - 1), 1)
    res[t0] = acc



FUZZ_CASE = {'seed': 2316, 'kernel': 'kern2316', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (3, 5, 1), 'int32', 'input')}, {'array': ('b', (5,), 'uint32', 'input')}, {'array': ('idx', (5,), 'uint8', 'index')}, {'array': ('c', (7,), 'int16', 'index')}, {'array': ('out', (5, 1), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (1,), 'int32', 'output')}, {'array': ('priv', (10, 6), 'int64', 'private')}, {'array': ('hist', (4, 2), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 3, 'uint32')}, {'scalar': ('xf', 3.5, 'float')}]}
