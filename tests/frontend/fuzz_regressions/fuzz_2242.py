# (cuda.atomic.max made .sub since: with .add on one element the result depended on the order)
# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 4 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination: line 32 array 'hist': index 5 axis 1 size 5 thread (3, 0, 0) block (0, 0, 0) | with every check: line 45 array 'b': index 4 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 45 array 'b': index 4 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0); line 45 array 'b': index 4
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern2242(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = -cuda.threadIdx.x
    v1 = 3 * i + i
    v2 = 0
    if 0 <= -1 < dst.shape[0]:
        for k1 in range(idx.shape[0] - 1):
            if 0 <= v0 < src.shape[0]:
                acc += src[v0]
            o1[i] = 1
            acc += src[k1 - 2]
            if 5 < m:
                if t0 >= 0 and not (t0 >= out.shape[0] + 1):
                    out[t0] = 1
                    cuda.atomic.sub(hist, ((dst.shape[0]) // 2, i - 2), 2)
            else:
                cuda.atomic.add(hist, (cuda.grid(1), k1), 2)
                if 0 <= i + n < out.shape[0]:
                    out[i + n] = 1
                    if 0 <= v2 and v2 < idx.shape[0] + 1:
                        acc += idx[v2]
                        v2 = k1
    cuda.atomic.add(hist, (t0 - 2, i + 2), 3)
    if v2 >= 0 and v2 <= a.shape[0] - 1 and -1 < t0 and t0 <= a.shape[1] - 1:
        acc += a[v2, t0]
    if 0 <= v1 < out.shape[0]:
        out[v1] = 1
        priv[t0, i] += o1.shape[0] - -1 + 1
    if True:
        dst[i] = 1
    if i + 1 >= idx.shape[0]:
        return
    acc += idx[i + 1]
    for k1 in range(b.shape[0] - 0):
        k1 = n - 3
        acc += b[k1]
    o1[i] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2242, 'kernel': 'kern2242', 'griddim': (2,), 'blockdim': (4,), 'params': [{'array': ('a', (6, 6), 'int32', 'input')}, {'array': ('b', (2,), 'int32', 'input')}, {'array': ('idx', (7,), 'int16', 'index')}, {'array': ('c', (8,), 'int8', 'index')}, {'array': ('out', (2,), 'int32', 'output')}, {'array': ('o1', (2,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (8, 3), 'int64', 'private')}, {'array': ('hist', (2, 5), 'int64', 'hist')}, {'array': ('res', (8,), 'int64', 'result')}, {'scalar': ('n', 7, 'int')}, {'scalar': ('m', 3, 'uint32')}, {'scalar': ('xf', 3.5, 'float')}]}
