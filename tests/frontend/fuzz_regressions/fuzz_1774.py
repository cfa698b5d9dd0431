# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 5 is out of bounds for axis 1 with size 5) with elimination, None () with every check
# failures with elimination:  | with every check: line 29 array 'b': index 5 axis 1 size 5 thread (0, 0, 0) block (0, 0, 0); line 29 array 'b': index 5 axis 1 size 5 thread (0, 0, 0) block (1, 0, 0); line 29 array 'b': index 5 axis 1 size 5 thread (1, 0, 0) block (0, 0, 0); line 29 array 'b': index 5 
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    if r < src.shape[0] and r >= 0:
        r += src[r]
    return r + p

@safekern.jit
def kern1774(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = cuda.threadIdx.x
    sm = cuda.shared.array((2, 4), int32)
    for q in range(cuda.threadIdx.x, 2 * 4, cuda.blockDim.x):
        sm[q // 4, q % 4] = q
    cuda.syncthreads()
    o1[cuda.threadIdx.x] = 1
    for k1 in range(1, b.shape[1] - 1, 2):
        k1 += 2
        acc += b[k1 - 1, k1]
    if True:
        acc += idx[i]
        cuda.atomic.add(hist, (3, v0), 3)
    priv[t0, 2] += min((v2) * (n), idx[v2])
    for k1 in range(max(idx[v1 - 1], -12), min(idx[t0 + 1], 12)):
        if -1 < b.shape[0]:
            break
        if i >= src.shape[0]:
            break
        acc += src[i]
        for k2 in range(t0 - 1, idx.shape[0]):
            acc += idx[k2]
            k1, v0 = v0, k1
    v1 -= 1
    v1 -= 2
    dst[-1 * t0] = 1
    if t0 + m < xf:
        o1[t0 + m] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 1774, 'kernel': 'kern1774', 'griddim': (2,), 'blockdim': (2,), 'params': [{'array': ('a', (6, 5, 5), 'uint32', 'input')}, {'array': ('b', (6, 5), 'int16', 'input')}, {'array': ('idx', (4,), 'uint8', 'index')}, {'array': ('c', (6,), 'int32', 'index')}, {'array': ('out', (5, 4), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (8,), 'int32', 'output')}, {'array': ('priv', (4, 5), 'int64', 'private')}, {'array': ('hist', (6, 6), 'int64', 'hist')}, {'array': ('res', (4,), 'int64', 'result')}, {'scalar': ('n', 0, 'int')}, {'scalar': ('m', 2, 'int')}, {'scalar': ('xf', 2.5, 'float')}]}
