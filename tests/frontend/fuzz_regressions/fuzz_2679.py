# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 3 is out of bounds for axis 0 with size 2) with elimination, None () with every check
# failures with elimination: line 23 array 'b': index 1 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 23 array 'b': index 2 axis 0 size 1 thread (2, 0, 0) block (0, 0, 0) | with every check: line 23 array 'b': index 1 axis 0 size 1 thread (1, 0, 0) block (0, 0, 0); line 23 array 'b': index 2 ax
from numba import cuda, int32, int64
import safekern
TILE = 2

@safekern.jit
def kern2679(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = n
    v2 = i
    sm = cuda.shared.array((2, TILE), int32)
    for q in range(cuda.threadIdx.x, 2 * TILE, cuda.blockDim.x):
        sm[q // TILE, q % TILE] = q
    cuda.syncthreads()
    loc = cuda.local.array(3, int64)
    for q in range(3):
        loc[q] = 2 * q
    if True:
        acc += b[i]
    for k0 in range(o1.shape[0], b.shape[0], 3):
        for k1 in range(min(n, 12)):
            o1[k1 + 1] = 1
            o1[k1 - 1] = 1
            o1[k1] = 1
        acc += src[v2]
        if True:
            loc[2 * t0] = v1
    if 0 <= v2 < o1.shape[0]:
        o1[v2] = 1
    if 0 <= v2 < dst.shape[0] and (v2 := v2 + 3) > 0:
        dst[v2] = 1
    cuda.syncthreads()
    if v0 - 1 < xf:
        out[v0 - 1] = 1
        if not (0 <= v2 < a.shape[0]):
            return
        acc += a[v2, v2, v1]
    if v0 >= out.shape[0]:
        return
    out[v0] = 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2679, 'kernel': 'kern2679', 'griddim': (2,), 'blockdim': (3,), 'params': [{'array': ('a', (4, 2, 1), 'int32', 'input')}, {'array': ('b', (1,), 'int32', 'input')}, {'array': ('idx', (4,), 'int64', 'index')}, {'array': ('c', (6,), 'uint32', 'index')}, {'array': ('out', (3,), 'int32', 'output')}, {'array': ('o1', (4,), 'int32', 'output')}, {'array': ('o2', (2,), 'int32', 'output')}, {'array': ('priv', (6, 1), 'int64', 'private')}, {'array': ('hist', (5,), 'int64', 'hist')}, {'array': ('res', (6,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 5, 'int')}, {'scalar': ('xf', -0.5, 'float')}]}
