# launch raised IndexError (tid=[0, 0, 0] ctaid=[0, 0, 0]: index 6 is out of bounds for axis 0 with size 4) with elimination, None () with every check
# failures with elimination: line 44 array 'a': index 6 axis 1 size 1 thread (1, 0, 0) block (0, 0, 0); line 44 array 'a': index 6 axis 1 size 1 thread (2, 0, 0) block (0, 0, 0); line 44 array 'a': index 6 axis 1 size 1 thread (3, 0, 0) block (0, 0, 0); line 44 array 'a': index 6 axis 1 size 1 thread 
from numba import cuda, int32, int64
import safekern
TILE = 5

@safekern.jit
def kern2293(a, b, idx, c, out, o1, o2, priv, hist, res, n, m, xf):
    i = cuda.grid(1)
    t0 = i
    src = c
    dst = o2
    acc = 0
    v0 = 0
    v1 = 0
    v2 = 0
    *_rest, v2 = out.shape
    sm = cuda.shared.array((TILE, 1), int32)
    for q in range(cuda.threadIdx.x, TILE * 1, cuda.blockDim.x):
        sm[q // 1, q % 1] = q
    cuda.syncthreads()
    if a.shape[0] < a.shape[1]:
        for k1 in range(max(idx[(i) * (m)], -12), min(idx[i], 12)):
            dst[t0 + 1] = 1
            if v2 >= 0 and v2 < dst.shape[0]:
                acc += a[cuda.blockIdx.x, a.shape[1] - 1 - v1]
            for k2 in range(src.shape[0] - 0):
                if v0 + 2 < out.shape[0] or 2 * 0 > 1:
                    k1 += 1
            if 0 <= k1 and k1 < src.shape[0]:
                acc += src[k1]
        for k1 in range(1, min(n, 12), 2):
            acc += a[k1 - 1, cuda.threadIdx.x]
            acc += a[k1 - 1, v0 + n]
            acc += a[k1 - 1, v0 - 1]
        for k0 in range(cuda.blockDim.x):
            k0, v2 = v2, k0
    else:
        for k2 in range(1, a.shape[1] - 1):
            acc += a[t0, k2 + 1]
            if (sm.shape[1]) * (cuda.threadIdx.x + i) < o1.shape[0] or cuda.threadIdx.x > 0:
                k2 += 1
            acc += a[cuda.threadIdx.x, k2]
    for k1 in range(b.shape[0] + 1):
        if cuda.threadIdx.x - 1 >= 0 and a.shape[0] > cuda.threadIdx.x - 1:
            acc += a[cuda.threadIdx.x - 1, v2]
            v0 = n
        if 0 <= v0 < dst.shape[0] and (v0 := v0 + 3) > 0:
            dst[v0] = 1
        if 0 <= v1 - 1 < b.shape[0] and t0 + n >= 0 and t0 + n < b.shape[1]:
            acc += b[v1 - 1, t0 + n]
        cuda.atomic.add(hist, cuda.threadIdx.x - m, 1)
    cuda.syncthreads()
    for k2 in range(out.shape[0] - 1):
        for k0 in range(b.shape[0] - 0):
            for k1 in range(i - 1, b.shape[0] + 1, cuda.gridsize(1)):
                acc += b[k1 - 1, k2 + 1]
                acc += b[k1 - i - 1, v1 + 1]
                if idx.shape[0] > k2 and -1 < t0 - 1 and t0 - 1 < out.shape[1]:
                    out[k2, t0 - 1] = 1
                    v0 = 0 + t0 + 1
        w1 = 0
        while w1 < 1 and ((i) * (b.shape[0] + 1) == min(t0, m) + (out.shape[0]) % 4):
            w1 += 1
            for k0 in range(dst.shape[0] + 1):
                if k2 != max(t0, idx[i]):
                    continue
                if not (i + 1 >= a.shape[1]):
                    k0 += 1
            if 0 <= i + 1 < dst.shape[0]:
                dst[i + 1] = 1
        v1 = max(i, 2 + 1)
        acc += src[cuda.threadIdx.x + 3]
    if i + 1 < a.shape[0] and v0 + 1 >= 0 and a.shape[1] > v0 + 1:
        acc += a[i + 1, v0 + 1]
        for k2 in range(out.shape[1] - 1):
            if cuda.blockIdx.x + 2 != cuda.threadIdx.x:
                if v2 == t0:
                    continue
                o1[t0] = 1
            if 0 <= v1 < o1.shape[0] and (v1 := v1 + 2) > 0:
                o1[v1] = 1
            for k1 in range(sm.shape[0]):
                acc += a[a.shape[0] - 1 - t0, cuda.threadIdx.x]
                if -1 < k1 + m and idx.shape[0] > k1 + m:
                    acc += idx[k1 + m]
                if -1 < v0 + 1 and v0 + 1 < src.shape[0]:
                    acc += src[v0 + 1]
                    acc += sm[k1 - 1, v1]
    for k0 in range(1, o1.shape[0] - 1):
        if v0 < out.shape[0]:
            k0 += 1
    res[t0] = acc



FUZZ_CASE = {'seed': 2293, 'kernel': 'kern2293', 'griddim': (2,), 'blockdim': (5,), 'params': [{'array': ('a', (5, 1), 'uint32', 'input')}, {'array': ('b', (5, 3), 'int64', 'input')}, {'array': ('idx', (7,), 'int32', 'index')}, {'array': ('c', (1,), 'int32', 'index')}, {'array': ('out', (5, 6), 'int32', 'output')}, {'array': ('o1', (3,), 'int32', 'output')}, {'array': ('o2', (4,), 'int32', 'output')}, {'array': ('priv', (10, 3), 'int64', 'private')}, {'array': ('hist', (9,), 'int64', 'hist')}, {'array': ('res', (10,), 'int64', 'result')}, {'scalar': ('n', 1, 'int')}, {'scalar': ('m', 3, 'int')}, {'scalar': ('xf', 4.0, 'float')}]}
