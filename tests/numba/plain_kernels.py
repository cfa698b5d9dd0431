"""Kernels for test_plain_launches.py: launches that can record no failure."""
import math

import numpy as np
from numba import cuda

import safekern


@safekern.jit
def axpy_scalar(a, x, y):             # no array at all: nothing to check
    z = a * x + y                     # noqa: F841


@safekern.jit(device=True)
def twice(v):                         # a device function with no check
    return 2 * v


@safekern.jit(device=True)
def load(a, i):                       # a device function with a check
    return a[i]


@safekern.jit
def copy_twice(a, out):
    i = cuda.grid(1)
    out[i] = twice(a[i])              # both proven at launch: a, out no shorter than the grid


@safekern.jit
def copy_through_load(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = load(a, i)           # the callee's check stays: never plain


@safekern.jit
def poke(a, k):
    a[k] = 1.0                        # data-dependent: always checked


@safekern.jit
def sine(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.sin(i)          # proven statically: no check at all


@safekern.jit("void(float64[::1])")
def eager_fill(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = 7.0


def arange(n):
    return cuda.to_device(np.arange(n, dtype=np.float64))


@safekern.jit
def times2_kernel(v):                 # a kernel called as a device function (numba allows it)
    return v * 2


@safekern.jit(device=True)
def twice_int(v):
    return v * 2


@safekern.jit
def calls_times2_kernel(r, x):        # numba-cuda's test_declare_device_cabi_propagate's shape
    i = cuda.grid(1)
    if i < len(r):
        r[i] = times2_kernel(x[i])


@safekern.jit
def calls_twice_int(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = twice_int(x[i])

