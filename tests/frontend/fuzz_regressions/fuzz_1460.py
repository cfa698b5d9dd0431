# launch raised IndexError (tid=[2, 0, 0] ctaid=[1, 0, 0]: index 7 is out of bounds for axis 0 with size 7) with elimination, None () with every check
# failures with elimination: line 22 array 'b': index -7 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0) | with every check: line 22 array 'b': index -7 axis 0 size 6 thread (0, 0, 0) block (0, 0, 0); line 33 array 'dst': index 7 axis 0 size 7 thread (2, 0, 0) block (1, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 3

@safekern.jit
def kern1460(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o2
    acc = 0
    v0 = src.shape[0]
    v1 = i - 1
    v2 = cuda.threadIdx.x
    sm = cuda.shared.array((3, TILE), int32)
    for q in range(cuda.threadIdx.x, 3 * TILE, cuda.blockDim.x):
        sm[q // TILE, q % TILE] = q
    cuda.syncthreads()
    for k2 in range(cuda.grid(1), idx.shape[0], cuda.gridsize(1)):
        v0 = -max(o1.shape[0], cuda.grid(1))
        priv[t0, v1] = -6 - 2
        acc += b[v0, min(k2, cuda.threadIdx.x)]
        if 0 <= v1 + n and not (v1 + n >= out.shape[0]) and 0 <= cuda.threadIdx.x < out.shape[2]:
            out[v1 + n, v0, cuda.threadIdx.x] = 1
            for k0 in range(a.shape[1] - 1):
                acc += src[k0]
                acc += src[v1 + 2]
                if 0 <= k2 < o1.shape[0]:
                    break
    if 0 <= v0 and v0 <= dst.shape[0] - 1:
        dst[v0] = 1
    if 0 <= v1 < dst.shape[0] and (v1 := v1 + 3) > 0:
        dst[v1] = 1
    if v1 + 1 >= a.shape[0]:
        return
    acc += a[v1 + 1, 2 * t0]
    for k2 in range(cuda.grid(1), -1, -1):
        v2 = idx[t0]
        if v1 > a.shape[0]:
            return
        acc += a[v1, v1]
        k2 += 2
    res[t0] = acc



FUZZ_CASE = {'seed': 1460, 'kernel': 'kern1460', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (3, 1), 'uint8', 'input')}, {'array': ('b', (6, 5), 'int32', 'input')}, {'array': ('idx', (1,), 'uint8', 'index')}, {'array': ('c', (2,), 'uint8', 'index')}, {'array': ('out', (2, 1, 5), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (7,), 'int32', 'output')}, {'array': ('priv', (6, 2), 'int64', 'private')}, {'array': ('hist', (6, 6), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 0, 'int')}, {'scalar': ('m', 9, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
