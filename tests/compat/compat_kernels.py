"""Kernels for tests/compat/test_numba_compat.py: the constructs numba-cuda's own test suite uses
that a drop-in must compile (functions as arguments, recursion, kernels called as device
functions, *args, defaults, grid syncs). Each has a planted out-of-bounds access its test
provokes."""
from numba import cuda

import safekern


@safekern.jit(device=True)
def clamp_none(i):
    return i


@safekern.jit(device=True)
def read_at(a, i):
    return a[i]                       # line of the access a passed-in function makes


@safekern.jit(device=True)
def apply_op(out, i, value, op, index_of):
    op(out, index_of(i), value)


@safekern.jit
def atomic_through_parameter(out, n):
    i = cuda.grid(1)
    if i < n:
        apply_op(out, i, 1, cuda.atomic.add, clamp_none)


@safekern.jit(device=True)
def call_reader(a, i, reader):
    return reader(a, i)


@safekern.jit
def read_through_parameter(out, a, shift):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = call_reader(a, i + shift, read_at)


@safekern.jit(device=True)
def sum_down(a, n):
    if n < 0:
        return 0.0
    return a[n] + sum_down(a, n - 1)


@safekern.jit
def recursive_sum(out, a, start):
    out[0] = sum_down(a, start)


@safekern.jit
def inner_kernel(a, i):
    return a[i] * 2


@safekern.jit
def kernel_calling_kernel(out, a, shift):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = inner_kernel(a, i + shift)


@safekern.jit(device=True)
def total(a, *idx):
    s = 0.0
    for j in idx:
        s += a[j]
    return s


@safekern.jit
def star_args(out, a, k):
    out[0] = total(a, 0, 1, k)


@safekern.jit(device=True)
def scaled(a, i, factor=3):
    return a[i] * factor


@safekern.jit
def defaults_omitted(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = scaled(a, i)


@safekern.jit
def grid_steps(out, a, shift):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i + shift]
    g.sync()
    if i < out.shape[0]:
        out[i] += 1
    g.sync()
    if i < out.shape[0]:
        out[i] += 1


@safekern.jit
def two_args(a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = b


def line_of(text: str) -> int:
    """The line of this file holding `text` (a planted access)."""
    with open(__file__) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise ValueError(text)
