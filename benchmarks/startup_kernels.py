"""Ten kernels for the start-up benchmark (benchmarks/cache_startup.py), with their data, launch
geometry and NumPy reference.

Undecorated, like benchmarks/kernels.py: the benchmark applies `safekern.jit` (checked) or
`safekern.jit(cache=True)` under SAFEKERN_CHECKS=0 (numba-cuda's own cache) to the same
functions. They are the kinds of kernels benchmarks/kernels.py holds (elementwise, stencils,
matrix products with shared memory and barriers, reductions, atomics, gathers), written here so
that the start-up figures do not change when those do.
"""
import math

import numpy as np
from numba import cuda, float32, int32

TILE = 16
TTILE = 32
TPAD = 33
BLOCK = 256
BINS = 64


def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


def saxpy(alpha, x, y):
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = alpha * x[i] + y[i]


def jacobi(u, out):
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


def reduce_sum(x, partial):
    sm = cuda.shared.array(BLOCK, float32)
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


def histogram(data, bins):
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


def stencil5(a, out):
    i = cuda.grid(1)
    if i >= 2 and i < a.shape[0] - 2:
        out[i] = (a[i - 2] + a[i - 1] + a[i] + a[i + 1] + a[i + 2]) * float32(0.2)


def gather_sqrt(out, src, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.sqrt(src[idx[i]])


NAMES = ("vector_add", "saxpy", "jacobi", "matmul_naive", "matmul_tiled", "transpose",
         "reduce_sum", "histogram", "stencil5", "gather_sqrt")


def cases(n: int = 1 << 16, m: int = 128, blocks: int = 64, seed: int = 7):
    """{name: (host inputs, make_launch(dev) -> (grid, block, args), out name, reference)}:
    vectors of `n`, `m` x `m` matrices, `blocks` blocks for the grid-stride kernels."""
    rng = np.random.default_rng(seed)
    v = rng.random(n, dtype=np.float32)
    w = rng.random(n, dtype=np.float32)
    u = rng.random((m, m), dtype=np.float32)
    a = rng.random((m, m), dtype=np.float32)
    b = rng.random((m, m), dtype=np.float32)
    data = rng.integers(0, BINS, n).astype(np.int32)
    idx = rng.integers(0, n, n).astype(np.int64)
    g1 = (n + BLOCK - 1) // BLOCK
    g2 = ((m + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    jac = u.copy()
    jac[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    st = np.zeros(n, np.float32)
    st[2:-2] = (v[:-4] + v[1:-3] + v[2:-2] + v[3:-1] + v[4:]) * np.float32(0.2)
    return {
        "vector_add": ({"a": v, "b": w, "out": np.zeros(n, np.float32)},
                       lambda d: (g1, BLOCK, (d["a"], d["b"], d["out"])), "out", v + w),
        "saxpy": ({"x": v, "y": w.copy()},
                  lambda d: (g1, BLOCK, (np.float32(2.0), d["x"], d["y"])), "y",
                  np.float32(2.0) * v + w),
        "jacobi": ({"u": u, "out": u.copy()}, lambda d: (g2, (TILE, TILE), (d["u"], d["out"])),
                   "out", jac),
        "matmul_naive": ({"a": a, "b": b, "c": np.zeros((m, m), np.float32)},
                         lambda d: (g2, (TILE, TILE), (d["a"], d["b"], d["c"])), "c", a @ b),
        "matmul_tiled": ({"a": a, "b": b, "c": np.zeros((m, m), np.float32)},
                         lambda d: (g2, (TILE, TILE), (d["a"], d["b"], d["c"])), "c", a @ b),
        "transpose": ({"a": a, "out": np.zeros((m, m), np.float32)},
                      lambda d: (((m + TTILE - 1) // TTILE,) * 2, (TTILE, 8),
                                 (d["a"], d["out"])), "out", a.T),
        "reduce_sum": ({"x": v, "partial": np.zeros(blocks, np.float32)},
                       lambda d: (blocks, BLOCK, (d["x"], d["partial"])), "partial",
                       np.float32(v.sum(dtype=np.float64))),
        "histogram": ({"data": data, "bins": np.zeros(BINS, np.int32)},
                      lambda d: (blocks, BLOCK, (d["data"], d["bins"])), "bins",
                      np.bincount(data, minlength=BINS).astype(np.int32)),
        "stencil5": ({"a": v, "out": np.zeros(n, np.float32)},
                     lambda d: (g1, BLOCK, (d["a"], d["out"])), "out", st),
        "gather_sqrt": ({"out": np.zeros(n, np.float32), "src": v, "idx": idx},
                        lambda d: (g1, BLOCK, (d["out"], d["src"], d["idx"])), "out",
                        np.sqrt(v[idx])),
    }


def check(name: str, got, want) -> bool:
    if name == "reduce_sum":
        got = got.sum(dtype=np.float64)
    return bool(np.allclose(got, want, rtol=2e-4, atol=2e-4))
