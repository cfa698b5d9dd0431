# launch raised IndexError (tid=[4, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 6) with elimination, None () with every check
# failures with elimination: line 41 array 'dst': index 12 axis 0 size 1 thread (0, 0, 0) block (0, 0, 0); line 41 array 'dst': index 12 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 41 array 'dst': index 12 axis 0 size 1 thread (2, 0, 0) block (0, 0, 0) | with every check: line 32 array 'src':
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit
def kern1633(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = cuda.threadIdx.x
    v1 = min(cuda.threadIdx.x, i) - o1.shape[0]
    v2 = 0
    sm = cuda.shared.array(6, int32)
    for q in range(cuda.threadIdx.x, sm.shape[0], cuda.blockDim.x):
        sm[q] = q
    cuda.syncthreads()
    if 0 <= v0 and v0 < xf and -1 < i and not (i >= a.shape[1]) and a.shape[2] > cuda.threadIdx.x:
        acc += a[v0, i, cuda.threadIdx.x]
        src = idx
    w1 = 0
    while w1 < 4 and (n - 2 >= a.shape[1]):
        w1 += 1
        v2 = 5 + i - -1 - v2
    dst[v2] = 1
    w2 = 0
    while w2 < 4:
        w2 += 1
        if i > src.shape[0]:
            return
        acc += src[i]
        if 0 <= v1 < idx.shape[0] and (v1 := v1 + 1) > 0:
            acc += idx[v1]
        if v2 - 1 < 0 or v2 - 1 >= src.shape[0]:
            continue
        acc += src[v2 - 1]
    acc += a[v2 + 1, cuda.threadIdx.x, v1]
    acc += b[cuda.threadIdx.x]
    cuda.syncthreads()
    dst[sm.shape[0] + sm.shape[0]] = 1
    priv[t0, cuda.grid(1)] += max(b.shape[0], v0) - 1
    w3 = 0
    while w3 < 2 and ((m) * (3) == src.shape[0]):
        w3 += 1
        cuda.atomic.add(hist, w3, 1)
        v0 = idx[1]
    res[t0] = acc



FUZZ_CASE = {'seed': 1633, 'kernel': 'kern1633', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (3, 5, 6), 'int32', 'input')}, {'array': ('b', (6,), 'int8', 'input')}, {'array': ('idx', (6,), 'int64', 'index')}, {'array': ('c', (5,), 'uint8', 'index')}, {'array': ('out', (6, 2, 5), 'int32', 'output')}, {'array': ('o1', (1,), 'int32', 'output')}, {'array': ('o2', (1,), 'int32', 'output')}, {'array': ('priv', (10, 3), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 8, 'int')}, {'scalar': ('m', 3, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
