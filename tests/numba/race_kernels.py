"""Kernels for the race tests: in-place updates, copies between views, race-free patterns."""
import numpy as np
from numba import cuda

import safekern


@safekern.jit
def smooth(a):
    i = cuda.grid(1)
    if 0 < i < a.shape[0] - 1:
        a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3


@safekern.jit
def copy(dst, src):
    i = cuda.grid(1)
    if i < dst.shape[0]:
        dst[i] = src[i]


@safekern.jit
def double(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = a[i] * 2


@safekern.jit
def red_black(a):
    i = cuda.grid(1)
    if 2 * i + 1 < a.shape[0]:
        a[2 * i] = a[2 * i + 1] * 0.5


@safekern.jit
def scatter(out, x, idx):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[idx[i]] = x[i]


@safekern.jit
def transpose_in_place(a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = a[j, i]


@safekern.jit
def scale_2d(a, k):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = a[i, j] * k


@safekern.jit
def histogram(bins, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.add(bins, x[i], 1)


@safekern.jit
def shift_by(a, k):
    i = cuda.grid(1)
    if i + k < a.shape[0]:
        a[i] = a[i + k]


@safekern.jit
def everyone_writes_zero(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[0] = x[i]


@safekern.jit
def everyone_writes_one_value(r, x):
    r[0] = x + 1


@safekern.jit
def everyone_records_the_launch(a, meta, out):
    # (a newcomer's kernel: every thread stores the sizes it was launched with)
    i = cuda.grid(1)
    meta[0] = a.shape[0]
    meta[1] = cuda.blockDim.x * cuda.gridDim.x
    meta[2] = len(a) + a.size
    if i < out.shape[0]:
        out[i] = a[i]


@safekern.jit
def everyone_records_its_index(meta):
    meta[0] = cuda.grid(1)


@safekern.jit
def everyone_increments(r):
    r[0] = r[0] + 1


# -- barriers, grid syncs, reflections (issue 27) -----------------------------------------


@safekern.jit
def neighbour_after_barrier(b, out):
    t = cuda.threadIdx.x
    b[t] = t
    cuda.syncthreads()
    if t + 1 < b.shape[0]:
        out[t] = b[t + 1]


@safekern.jit
def neighbour_after_grid_sync(b, out):
    i = cuda.grid(1)
    if i < b.shape[0]:
        b[i] = i
    cuda.cg.this_grid().sync()
    if i + 1 < b.shape[0]:
        out[i] = b[i + 1]


@safekern.jit
def neighbour_without_barrier(b, out):
    t = cuda.threadIdx.x
    b[t] = t
    if t + 1 < b.shape[0]:
        out[t] = b[t + 1]


@safekern.jit
def reverse(out, inp):
    i = cuda.grid(1)
    n = inp.shape[0]
    if i < n:
        out[i] = inp[n - 1 - i]


@safekern.jit
def barrier_once_per_iteration(dst, src):
    t = cuda.threadIdx.x
    for r in range(2):
        dst[t] = r                  # iteration 1 writes what iteration 0 read after the barrier
        cuda.syncthreads()
        if t + 1 < src.shape[0]:
            dst[t] = src[t + 1]


@safekern.jit
def neighbour_after_syncwarp(b, out):
    t = cuda.threadIdx.x
    b[t] = t
    cuda.syncwarp()
    if t + 1 < b.shape[0]:
        out[t] = b[t + 1]


@cuda.jit(device=True)
def plain_barrier():
    cuda.syncthreads()


@safekern.jit
def neighbour_after_plain_helper(b, out):
    t = cuda.threadIdx.x
    b[t] = t
    plain_barrier()
    if t + 1 < b.shape[0]:
        out[t] = b[t + 1]


@safekern.jit(device=True)
def warp_sync(x):
    cuda.syncwarp()
    return x


@safekern.jit
def neighbour_after_checked_helper(b, out):
    t = cuda.threadIdx.x
    b[t] = t
    warp_sync(0)
    if t + 1 < b.shape[0]:
        out[t] = b[t + 1]


@safekern.jit
def global_neighbour_after_barrier(b, out):
    i = cuda.grid(1)
    if i < b.shape[0]:
        b[i] = i
    cuda.syncthreads()
    if i + 1 < b.shape[0]:
        out[i] = b[i + 1]


@safekern.jit
def everyone_reads_what_one_writes(a):
    i = cuda.grid(1)
    if i + 2 < a.shape[0]:
        a[i + 2] = a[2] + 1.0           # thread 0 writes a[2], every thread reads it


@safekern.jit
def neighbour_after_aliased_barrier(b, out):
    sync = cuda.syncthreads
    i = cuda.grid(1)
    if i < b.shape[0]:
        b[i] = i
    sync()
    if i + 1 < b.shape[0]:
        out[i] = b[i + 1]


@safekern.jit(device=True)
def scaled_read(src, i, factor):
    return src[i] * factor


@safekern.jit(device=True)
def bump(dst, i):
    dst[i] += 1.0


@safekern.jit
def reads_through_a_helper(src, out):
    i = cuda.grid(1)
    if i < out.shape[0] and i < src.shape[0]:
        out[i] = scaled_read(src, i, 2.0)       # src is only read, in the helper


@safekern.jit
def writes_through_a_helper(dst, out):
    i = cuda.grid(1)
    if i < out.shape[0] and i < dst.shape[0]:
        bump(dst, i)                           # dst is written, in the helper
        out[i] = 1.0
