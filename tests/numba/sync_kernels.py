"""Kernels for the sync-point and never-lost tests. `# site: NAME` marks the line a failure names."""
import numpy as np
from numba import cuda

import safekern
from tests.numba.numba_kernels import site_line

RECORD = np.dtype([("x", np.float64), ("n", np.int32)])


@safekern.jit
def shift_write(a):
    i = cuda.grid(1)
    a[i + 1] = 1.0  # site: shift_write


@safekern.jit
def copy_all(out, src):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for k in range(src.shape[0]):
            s += src[k]
        out[i] = s


@safekern.jit
def fill_index(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = i


@safekern.jit
def record_read(r, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = r[i + 1].x * 2  # site: record_read


@safekern.jit(device=True)
def first_or_zero(vals, i):
    if i >= 0:
        v = vals[i + 1]  # site: first_or_zero
        w = v * 2
    return w


@safekern.jit
def calls_first_or_zero(vals, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = first_or_zero(vals, i)


@safekern.jit
def raises_itself(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = 1.0 / 0   # a genuine host exception on the simulator, no check failed


def expected_line(name: str) -> int:
    return site_line(__file__, name)
