"""Kernels whose checks are proven at launch (test_launch_variants.py)."""
import numpy as np
from numba import cuda

import safekern


@safekern.jit
def scale_into(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * 2                      # needs a.shape[0] >= out.shape[0]


@safekern.jit
def transpose_tile(out, a):
    tile = cuda.shared.array((8, 8), dtype=np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]                   # needs blockDim <= (8, 8) and a that large
    cuda.syncthreads()
    out[tx, ty] = tile[ty, tx]


@safekern.jit
def window_sum(out, x, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for k in range(n):
            s += x[i + k]                      # needs x.shape[0] + 1 >= n + out.shape[0]
        out[i] = s


@safekern.jit
def two_windows(out, a, x, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = a[i]                               # needs a.shape[0] >= out.shape[0]
        for k in range(n):
            s += x[i + k]                      # needs x.shape[0] + 1 >= n + out.shape[0]
        out[i] = s


@safekern.jit
def entry_value(idx, table, out):
    j = idx                                    # the argument idx, all through the launch
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = table[j] + i                  # needs table.shape[0] >= idx + 1, idx >= 0
        idx = i % 3                            # (idx rebound: no launch fact of its own)
        out[i] += idx
