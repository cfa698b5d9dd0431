# launch raised IndexError (tid=[2, 1, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination:  | with every check: line 16 array 'b': index 3 axis 0 size 2 thread (0, 0, 0) block (0, 0, 0); line 16 array 'b': index 3 axis 0 size 2 thread (0, 1, 0) block (0, 0, 0); line 16 array 'b': index 3 axis 0 size 2 thread (1, 0, 0) block (0, 0, 0); line 16 array 'b': index 3 
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern1498(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 3 + x
    src = idx
    dst = o1
    acc = 0
    v0 = (min(y, 3)) * (x - y)
    v1 = 0
    v2 = 0
    if 0 <= v2 < b.shape[0] and (v2 := v2 + 3) > 0:
        acc += b[v2]
    w1 = 0
    while w1 < 3:
        w1 += 1
        acc += src[x + 1]
        for k1 in range(o1.shape[0] + 1):
            if x + 2 <= out.shape[0]:
                v0 = max(-1 * 6, v1 + 5)
                if not (v0 >= idx.shape[0]):
                    break
                v1 = (y) * (0)
            for k2 in range(1, dst.shape[0] - 1, 2):
                if 0 <= k1 < b.shape[0]:
                    acc += b[k1]
                k2 = idx[k2 + 1] - -1 * w1
    for k2 in range(max(v0 + 1, -12), o1.shape[0] + 1, 3):
        o1[k2] = 1
        o1[k2 - 1] = 1
    priv[t0, y] = v2
    if not (v0 >= src.shape[0]):
        if t0 >= 0 and t0 < src.shape[0]:
            acc += src[t0]
            if min(max(b.shape[0], x), 5 + 1) == a.shape[0]:
                acc += a[x + 1, x + 2]
                v2 = min((2) % 3, b.shape[0] + 2)
            else:
                v2 -= 2
                acc += a[-1, 6]
        if v1 != v1 - 1 - 1:
            return
        for k1 in range(o1.shape[0]):
            if dst.shape[0] - 1 < dst.shape[0]:
                if idx.shape[0] - 1 - k1 < n:
                    break
                k1 -= 2
                priv[t0, priv.shape[1] - 2] = 2 * b.shape[0]
            else:
                o1[v2] = 1
                v2 = t0
            k1 += 2
    else:
        if v2 + n < xf:
            acc += src[v2 + n]
    res[t0] = acc



FUZZ_CASE = {'seed': 1498, 'kernel': 'kern1498', 'griddim': (1, 1), 'blockdim': (3, 2), 'params': [{'array': ('a', (4, 3), 'int16', 'input')}, {'array': ('b', (2,), 'int32', 'input')}, {'array': ('idx', (6,), 'uint8', 'index')}, {'array': ('c', (1,), 'int32', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (5,), 'int32', 'output')}, {'array': ('o2', (5,), 'int32', 'output')}, {'array': ('priv', (6, 1), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 6, 'int')}, {'scalar': ('m', 5, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
