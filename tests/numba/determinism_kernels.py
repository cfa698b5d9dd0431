"""Kernels whose rewrite writes linear forms of several terms back into the code
(tests/numba/determinism_probe.py): a versioned loop's hoisted bound tests, launch predicates
and a choice (`min`) among the terms."""
from numba import cuda

import safekern


@safekern.jit
def window_sum(out, src, width, shift):
    # Versioned loop: the hoisted tests bound `i + j - shift` and `i - j + width` by the
    # extents, each a form of several atoms (the thread index, parameters, an extent).
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for j in range(width):
            acc += src[i + j - shift] + src[i - j + width]
        out[i] = acc


@safekern.jit
def tile_rows(m, out, offset, stride):
    # Two-dimensional: the row and column forms mix threadIdx, blockIdx * blockDim, offsets.
    tx = cuda.threadIdx.x
    row = cuda.blockIdx.x * cuda.blockDim.x + tx
    for k in range(stride):
        out[row, k] = m[row + offset, k + offset] - m[offset + k, row]


@safekern.jit
def clamped(out, src, lo, hi):
    i = cuda.grid(1)
    j = min(i + lo, hi - 1)
    if i < out.shape[0] and j >= 0:
        out[i] = src[j] + src[hi - 1 - (j - lo)]


KERNELS = ("window_sum", "tile_rows", "clamped")
