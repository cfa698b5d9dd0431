# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 1 is out of bounds for axis 0 with size 1) with elimination, None () with every check
# failures with elimination: line 26 array 'a': index 1 axis 1 size 1 thread (1, 0, 0) block (0, 0, 0); line 26 array 'a': index 2 axis 1 size 1 thread (2, 0, 0) block (0, 0, 0) | with every check: line 42 array 'b': index 1 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 26 array 'a': index 1 ax
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern2822(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = min(out.shape[0], cuda.blockIdx.x) + i
    v1 = m
    v2 = -1 * cuda.threadIdx.x + cuda.threadIdx.x
    loc = cuda.local.array(4, int64)
    for q in range(4):
        loc[q] = 2 * q
    v1 -= 1
    for k0 in range(idx.shape[0], a.shape[0], 2):
        priv[t0, priv.shape[1] - 1 - i] = ((n) * (v2)) * (v2)
        out[-1] = 1
        if 0 <= v2 < o1.shape[0]:
            o1[v2] = 1
            if v0 - 1 < 0 or v0 - 1 >= a.shape[0]:
                continue
            acc += a[v0 - 1, cuda.threadIdx.x]
        out[4] = 1
    loc[cuda.threadIdx.x] = i
    if dst.shape[0] == src.shape[0]:
        return
    w1 = 0
    while w1 < 1 and (3 * 2 * idx.shape[0] >= 0 and 3 * 2 * idx.shape[0] < a.shape[1]):
        w1 += 1
        for k1 in range(o1.shape[0]):
            if k1 < 0 or k1 >= idx.shape[0]:
                return
            acc += idx[k1]
    if not (v1 >= src.shape[0]):
        acc += src[v1]
        o1[min(i, i)] = 1
    if 0 <= v2 < b.shape[0] and (v2 := v2 + 1) > 0:
        acc += b[v2]
    if 0 <= cuda.threadIdx.x + 1 < o1.shape[0]:
        o1[cuda.threadIdx.x + 1] = 1
    v0 = max(min(t0, o1.shape[0]), -1 * i)
    res[t0] = acc



FUZZ_CASE = {'seed': 2822, 'kernel': 'kern2822', 'griddim': (1,), 'blockdim': (3,), 'params': [{'array': ('a', (5, 1), 'int64', 'input')}, {'array': ('b', (1,), 'int32', 'input')}, {'array': ('idx', (4,), 'int64', 'index')}, {'array': ('c', (6,), 'uint8', 'index')}, {'array': ('out', (1,), 'int32', 'output')}, {'array': ('o1', (6,), 'int32', 'output')}, {'array': ('o2', (3,), 'int32', 'output')}, {'array': ('priv', (3, 2), 'int64', 'private')}, {'array': ('hist', (3, 1), 'int64', 'hist')}, {'array': ('res', (3,), 'int64', 'result')}, {'scalar': ('n', -1, 'int')}, {'scalar': ('m', 9, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
