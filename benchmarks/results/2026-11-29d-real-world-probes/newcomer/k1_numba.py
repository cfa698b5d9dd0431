"""Second-hour kernels, written the way I normally write numba-cuda code."""
import math
import numpy as np
from numba import cuda, float32, int32
import safekern

TPB = 32

# 1. 1-D saxpy
@safekern.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

# 2. 2-D grid: matrix add with a 2-D launch
@safekern.jit
def madd(c, a, b):
    r, col = cuda.grid(2)
    if r < c.shape[0] and col < c.shape[1]:
        c[r, col] = a[r, col] + b[r, col]

# 3. tiled matmul with shared memory + syncthreads
@safekern.jit
def matmul(C, A, B):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp

# 4. device function
@safekern.jit(device=True)
def clamp_get(a, i):
    j = min(max(i, 0), a.shape[0] - 1)
    return a[j]

@safekern.jit
def blur(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = (clamp_get(a, i - 1) + clamp_get(a, i) + clamp_get(a, i + 1)) / 3

# 5. atomics: histogram
@safekern.jit
def histogram(hist, data, nbins):
    i = cuda.grid(1)
    if i < data.shape[0]:
        b = int32(data[i] * nbins)
        cuda.atomic.add(hist, b, 1)

# 6. block reduction with shared memory
@safekern.jit
def block_sum(partial, a):
    sm = cuda.shared.array(128, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[tid] = a[i] if i < a.shape[0] else 0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = sm[0]

# 7. stencil with halo in shared memory
BS = 64
R = 2
@safekern.jit
def stencil(out, a):
    tile = cuda.shared.array(BS + 2 * R, dtype=float32)
    g = cuda.grid(1)
    t = cuda.threadIdx.x + R
    n = a.shape[0]
    if g < n:
        tile[t] = a[g]
    if cuda.threadIdx.x < R:
        left = g - R
        right = g + BS
        tile[t - R] = a[left] if left >= 0 else 0
        tile[t + BS] = a[right] if right < n else 0
    cuda.syncthreads()
    if R <= g < n - R:
        acc = float32(0)
        for k in range(-R, R + 1):
            acc += tile[t + k]
        out[g] = acc

# 8. deliberate off-by-one: inclusive loop bound
@safekern.jit
def prefix_naive(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k in range(i + 2):       # BUG: should be i + 1
            acc += a[k]
        out[i] = acc
