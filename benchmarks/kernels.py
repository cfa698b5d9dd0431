"""The benchmark kernels, each written once as plain Python kernel source.

None of these functions is decorated here: the harness applies the decorator of each mode
(`safekern.jit` with checks on, the same with SAFEKERN_CHECKS=0, i.e. plain numba) to the same
function object, so every mode compiles exactly this source. They are written the way a numba
user writes them (guards on `shape`, `range(...)` loops, shared memory, barriers, atomics), not
tuned for the checker.

Module-level constants are compile-time constants to numba (shared-memory shapes need them).
`cases.py` holds the data, launch geometry and NumPy reference of each kernel.
"""
import math

from numba import cuda, float32, int32

TILE = 16          # tiled matmul: TILE x TILE threads per block, two TILE x TILE shared tiles
TTILE = 32         # transpose: TTILE x TTILE tile, blocks of TTILE x (any divisor) threads
TPAD = 33          # TTILE + 1 columns: no shared-memory bank conflicts on the transposed read
MAX_BLOCK = 1024   # shared arrays of the reduction and the scan: one slot per thread
BINS = 256         # histogram bins (the data are bytes)


def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


def saxpy(alpha, x, y):
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = alpha * x[i] + y[i]


def jacobi(u, out):
    """One Jacobi sweep of the 2-D Laplace equation; the boundary stays fixed."""
    j, i = cuda.grid(2)
    n, m = u.shape
    if i >= 1 and i < n - 1 and j >= 1 and j < m - 1:
        out[i, j] = float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def matmul_naive(a, b, c):
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        acc = float32(0.0)
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


def matmul_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    n = a.shape[1]
    acc = float32(0.0)
    for t in range((n + TILE - 1) // TILE):
        k = t * TILE + tx
        if row < a.shape[0] and k < n:
            sa[ty, tx] = a[row, k]
        else:
            sa[ty, tx] = 0
        k = t * TILE + ty
        if k < n and col < b.shape[1]:
            sb[ty, tx] = b[k, col]
        else:
            sb[ty, tx] = 0
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sa[ty, kk] * sb[kk, tx]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


def reduce_sum(x, partial):
    """Grid-stride partial sums, then a shared-memory tree with a barrier per level."""
    sm = cuda.shared.array(MAX_BLOCK, float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        acc += x[i]
    sm[tid] = acc
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = sm[0]


def scan_blocks(x, out, block_sums):
    """Inclusive scan of each block's chunk (Hillis-Steele in shared memory); block totals."""
    sm = cuda.shared.array(MAX_BLOCK, int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.shape[0]:
        sm[tid] = x[i]
    else:
        sm[tid] = 0
    cuda.syncthreads()
    d = 1
    while d < cuda.blockDim.x:
        v = 0
        if tid >= d:
            v = sm[tid - d]
        cuda.syncthreads()
        sm[tid] += v
        cuda.syncthreads()
        d *= 2
    if i < out.shape[0]:
        out[i] = sm[tid]
    if tid == cuda.blockDim.x - 1:
        block_sums[cuda.blockIdx.x] = sm[tid]


def scan_block_sums(sums):
    """Inclusive scan of the block totals, in place, by one block walking chunks with a carry."""
    sm = cuda.shared.array(MAX_BLOCK, int32)
    tid = cuda.threadIdx.x
    width = cuda.blockDim.x
    carry = 0
    for base in range(0, sums.shape[0], width):
        i = base + tid
        if i < sums.shape[0]:
            sm[tid] = sums[i]
        else:
            sm[tid] = 0
        cuda.syncthreads()
        d = 1
        while d < width:
            v = 0
            if tid >= d:
                v = sm[tid - d]
            cuda.syncthreads()
            sm[tid] += v
            cuda.syncthreads()
            d *= 2
        if i < sums.shape[0]:
            sums[i] = sm[tid] + carry
        carry += sm[width - 1]
        cuda.syncthreads()


def scan_add_offsets(out, sums):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if b > 0 and i < out.shape[0]:
        out[i] += sums[b - 1]


def histogram(data, bins):
    """Per-block histogram with shared-memory atomics, merged with global atomics."""
    local = cuda.shared.array(BINS, int32)
    tid = cuda.threadIdx.x
    for b in range(tid, BINS, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(local, data[i], 1)
    cuda.syncthreads()
    for b in range(tid, BINS, cuda.blockDim.x):
        cuda.atomic.add(bins, b, local[b])


def gather_scatter(x, gidx, sidx, gathered, scattered):
    i = cuda.grid(1)
    if i < x.shape[0]:
        gathered[i] = x[gidx[i]]
        scattered[sidx[i]] = x[i]


def spmv_csr(indptr, indices, data, x, y):
    """y = A @ x, A in CSR form, one row per thread."""
    row = cuda.grid(1)
    if row < y.shape[0]:
        acc = float32(0.0)
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]
        y[row] = acc


def bfs_step(indptr, indices, frontier, level, next_frontier):
    """One top-down BFS level: mark the unvisited neighbours of the frontier."""
    u = cuda.grid(1)
    if u < frontier.shape[0] and frontier[u] != 0:
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if level[v] < 0:
                next_frontier[v] = 1


def transpose(a, out):
    tile = cuda.shared.array((TTILE, TPAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TTILE + tx
    for r in range(ty, TTILE, cuda.blockDim.y):
        row = cuda.blockIdx.y * TTILE + r
        if row < a.shape[0] and col < a.shape[1]:
            tile[r, tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TTILE + tx
    for r in range(ty, TTILE, cuda.blockDim.y):
        row = cuda.blockIdx.x * TTILE + r
        if row < out.shape[0] and col < out.shape[1]:
            out[row, col] = tile[tx, r]


def nbody(pos, acc, eps2):
    """Gravitational acceleration on every body from all bodies: O(n^2), compute bound.

    `pos[j]` is (x, y, z, mass); `eps2` is the softening that keeps j == i finite.
    """
    i = cuda.grid(1)
    if i < pos.shape[0]:
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
        ax = float32(0.0)
        ay = float32(0.0)
        az = float32(0.0)
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            dz = pos[j, 2] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = float32(1.0) / math.sqrt(r2)
            s = pos[j, 3] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


def kmeans_assign(points, centroids, labels):
    """The assignment step of k-means: the nearest centroid of every point."""
    i = cuda.grid(1)
    if i < points.shape[0]:
        best = 0
        best_d = float32(3.0e38)
        for c in range(centroids.shape[0]):
            d = float32(0.0)
            for f in range(points.shape[1]):
                t = points[i, f] - centroids[c, f]
                d += t * t
            if d < best_d:
                best_d = d
                best = c
        labels[i] = best


def empty():
    """Host launch overhead: nothing to do on the device."""
    pass


def empty_array(a):
    """Host launch overhead with one array argument (its marshalling is part of a launch)."""
    pass
