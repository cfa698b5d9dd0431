"""Kernels with asserts, raises and divisions. `# site: NAME` marks the line a failure names."""
import numpy as np
from numba import cuda, float64

import safekern
from tests.numba.numba_kernels import site_line


class WeightError(Exception):
    """A user's own exception class, raised inside a kernel."""


@safekern.jit
def scale_weights(w, out):
    i = cuda.grid(1)
    if i < w.shape[0]:
        if w[i] < 0:
            raise ValueError("negative weight")  # site: scale_weights
        out[i] = w[i] * 2


@safekern.jit
def weights_with_values(w, out):
    i = cuda.grid(1)
    if i < w.shape[0]:
        if w[i] < 0:
            raise WeightError(f"weight {i} is {w[i]}")  # site: weights_with_values
        out[i] = w[i]


@safekern.jit
def two_arguments(w, out):
    i = cuda.grid(1)
    if i < w.shape[0]:
        if w[i] < 0:
            raise KeyError("row", i)  # site: two_arguments
        out[i] = w[i]


@safekern.jit
def asserts_message(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        assert a[i] >= 0, f"a[{i}] = {a[i]} is negative"  # site: asserts_message
        out[i] = a[i]


@safekern.jit
def asserts_bare(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        assert a[i] >= 0  # site: asserts_bare
        out[i] = a[i]


@safekern.jit(device=True)
def checked_mean(total, count):
    if count <= 0:
        raise ValueError("empty group", count)  # site: checked_mean
    return total / count


@safekern.jit
def group_means(totals, counts, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = checked_mean(totals[i], counts[i])


@safekern.jit
def int_divide(a, d, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] // d[i] + a[i] % 4  # site: int_divide


@safekern.jit
def int_modulo_aug(a, d):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] %= d[i]  # site: int_modulo_aug


@safekern.jit
def float_divide(a, d, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] / d[i]  # site: float_divide


@safekern.jit
def block_mean_asserted(a, out):
    sh = cuda.shared.array(32, float64)
    t = cuda.threadIdx.x
    sh[t] = a[t]
    assert a[t] >= 0, "negative input"  # site: block_mean_asserted
    cuda.syncthreads()
    s = 16
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[0] = sh[0] / 32


def expected_line(name: str) -> int:
    return site_line(__file__, name)
