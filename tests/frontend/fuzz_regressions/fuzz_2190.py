# launch raised IndexError (tid=[1, 0, 0] ctaid=[0, 0, 0]: index 7 is out of bounds for axis 0 with size 7) with elimination, None () with every check
# failures with elimination:  | with every check: line 29 array 'dst': index 7 axis 0 size 7 thread (0, 0, 0) block (0, 0, 0); line 29 array 'dst': index 7 axis 0 size 7 thread (1, 0, 0) block (0, 0, 0)
from numba import cuda, int32, int64
import safekern
TILE = 6

@safekern.jit(device=True)
def d0(src, dst, p, q):
    r = 0
    r = r + 1
    if q < src.shape[0] and q >= 0:
        r += src[q]
    return r + p

@safekern.jit
def kern2190(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = idx
    dst = o1
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    sm = cuda.shared.array((TILE, TILE), int32)
    for q in range(cuda.threadIdx.x, TILE * TILE, cuda.blockDim.x):
        sm[q // TILE, q % TILE] = q
    cuda.syncthreads()
    v0 = d0(src, dst, max(1 + 3, a.shape[2] - 2), src.shape[0])
    if 0 <= v0 < dst.shape[0] and (v0 := v0 + 2) > 0:
        dst[v0] = 1
    for k2 in range(1):
        for k0 in range(1, dst.shape[0] - 1):
            dst[k0] = 1
            k0 += 2
            for k1 in range(1, min(n, 12)):
                acc += src[k1 + 1]
        src = idx
        if v0 + 1 >= dst.shape[0]:
            continue
        v1 += 1
        dst[v0 + 1] = 1
        acc += b[0]
    for k1 in range(sm.shape[0] - 1, cuda.threadIdx.x, -1):
        if k1 - 1 < xf:
            dst[k1 - 1] = 1
        if v0 >= -5:
            break
    cuda.syncthreads()
    priv[t0, cuda.threadIdx.x] = v0
    cuda.atomic.add(hist, -2, 3)
    res[t0] = acc



FUZZ_CASE = {'seed': 2190, 'kernel': 'kern2190', 'griddim': (1,), 'blockdim': (2,), 'params': [{'array': ('a', (5, 4, 4), 'int16', 'input')}, {'array': ('b', (3,), 'int8', 'input')}, {'array': ('idx', (4,), 'uint8', 'index')}, {'array': ('c', (5,), 'int8', 'index')}, {'array': ('out', (3, 6), 'int32', 'output')}, {'array': ('o1', (7,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (2, 5), 'int64', 'private')}, {'array': ('hist', (4,), 'int64', 'hist')}, {'array': ('res', (2,), 'int64', 'result')}, {'scalar': ('n', -1, 'int')}, {'scalar': ('m', 6, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
