# launch raised IndexError (tid=[0, 1, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 0 with size 5) with elimination, None () with every check
# failures with elimination: line 41 array 'loc': index 4 axis 0 size 3 thread (0, 0, 0) block (0, 0, 0) | with every check: line 41 array 'loc': index 4 axis 0 size 3 thread (0, 0, 0) block (0, 0, 0); line 41 array 'loc': index 4 axis 0 size 3 thread (0, 0, 0) block (1, 0, 0); line 21 array 'src': in
from numba import cuda, int32, int64
import safekern
TILE = 4

@safekern.jit
def kern1201(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    x, y = cuda.grid(2)
    t0 = y * 2 + x
    src = idx
    dst = o2
    acc = 0
    v0 = 0
    v1 = y + 1
    v2 = 0
    loc = cuda.local.array(3, int64)
    for q in range(3):
        loc[q] = 2 * q
    if 0 <= x and x < xf:
        acc += loc[x]
    if 0 <= v1 < src.shape[0] and (v1 := v1 + 3) > 0:
        acc += src[v1]
    w1 = 0
    while w1 < 2:
        w1 += 1
        w2 = 0
        while w2 < 2 and (n <= cuda.threadIdx.x):
            w2 += 1
            priv[t0, v2 + 2] += ((y) * (w2)) // 4
            for k1 in range(max(w1, -12), 5, 3):
                if v2 <= o1.shape[0] - 1:
                    acc += src[v2]
                k1 -= 1
                if t0 > out.shape[0]:
                    continue
                v0 += 2
                out[t0, v1 + 1] = 1
                k1 -= 1
            if 0 <= v1 < o1.shape[0] and (v1 := v1 + 2) > 0:
                o1[v1] = 1
        dst[0] = 1
        loc[4] = v2
    acc += loc[t0]
    res[t0] = acc



FUZZ_CASE = {'seed': 1201, 'kernel': 'kern1201', 'griddim': (2, 1), 'blockdim': (1, 2), 'params': [{'array': ('a', (1, 4), 'int64', 'input')}, {'array': ('b', (6, 3), 'int32', 'input')}, {'array': ('idx', (5,), 'uint32', 'index')}, {'array': ('c', (1,), 'uint8', 'index')}, {'array': ('out', (1, 2), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (4, 5), 'int64', 'private')}, {'array': ('hist', (3,), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 5, 'int')}, {'scalar': ('m', 7, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
