"""min/max clamps, conditional indices, `!=` and kept bounds (scans, reductions) at run time:
each kernel runs on the simulator with elimination on and off (tests/support/differential.py),
on data where the accesses stay in bounds and where the near misses go out; the two runs must
agree on every thread's first failure, on what escapes the launch and on the outputs."""
import numpy as np
import pytest
from numba import cuda, float32

from tests.support import differential

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]
needs_simulator = pytest.mark.skipif(not differential.SIMULATOR,
                                     reason="the differential runs need the CUDA simulator")


def neighbours(out, a, it, lo, hi):
    t = cuda.shared.array(16, float32)
    tx = cuda.threadIdx.x
    w = max(tx - 1, lo)
    e = min(tx + 1, hi)
    ok = tx >= lo and tx <= hi
    t[tx % 16] = a[tx % a.shape[0]]
    cuda.syncthreads()
    for i in range(it):
        if tx >= i + 1 and tx <= 14 - i and ok:
            out[tx] = t[w] + t[e]


def clamp(out, a):
    i = cuda.grid(1)
    n = a.shape[0]
    if i < out.shape[0]:
        out[i] = a[min(max(i - 3, 0), n - 1)]


def near_miss(out, a):
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n and i < out.shape[0]:
        out[i] = a[min(i + 1, n)]


def conditional(out, a):
    i = cuda.grid(1)
    n = a.shape[0]
    j = i - 1 if i >= 1 else 0
    if i < n and i < out.shape[0]:
        out[i] = a[j] + a[i + 1 if i + 1 < n else i]


def halo(out, a):
    bx = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    if bx == 0:
        out[bx * 8 + tx] = a[bx * 8 + tx]
    else:
        out[bx * 8 + tx] = a[bx * 8 - 1]


def scan_and_reduce(x, out):
    sm = cuda.shared.array(64, float32)
    tid = cuda.threadIdx.x
    sm[tid] = x[tid]
    cuda.syncthreads()
    d = 1
    while d < cuda.blockDim.x:
        v = float32(0.0)
        if tid >= d:
            v = sm[tid - d]
        cuda.syncthreads()
        sm[tid] += v
        cuda.syncthreads()
        d *= 2
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    out[tid] = sm[tid]


def arrays(*sizes):
    return lambda: [np.arange(max(n, 0), dtype=np.float32) + 1 for n in sizes]


CASES = [
    ("neighbours", neighbours, 1, 16,
     lambda: arrays(16, 16)() + [3, 0, 15]),
    ("neighbours_wide_bounds", neighbours, 1, 16,
     lambda: arrays(16, 16)() + [3, -5, 40]),
    ("clamp", clamp, 2, 8, lambda: arrays(16, 10)()),
    ("clamp_of_an_empty_array", clamp, 2, 8, lambda: arrays(16, 0)()),
    ("near_miss", near_miss, 2, 8, lambda: arrays(16, 10)()),
    ("conditional", conditional, 2, 8, lambda: arrays(16, 10)()),
    ("halo", halo, 3, 8, lambda: arrays(24, 24)()),
    ("halo_short_input", halo, 3, 8, lambda: arrays(24, 4)()),
    ("scan_and_reduce", scan_and_reduce, 1, 64, lambda: arrays(64, 64)()),
    ("scan_and_reduce_big_block", scan_and_reduce, 1, 128, lambda: arrays(128, 128)()),
]


@needs_simulator
@pytest.mark.parametrize("name, fn, grid, block, make_args", CASES, ids=[c[0] for c in CASES])
def test_the_same_with_and_without_elimination(name, fn, grid, block, make_args):
    diffs = differential.compare_function(fn, grid, block, make_args)
    assert not diffs, diffs


@needs_simulator
def test_the_near_miss_really_fails():
    import safekern
    outcome = differential.launch(safekern.jit(near_miss), 2, 8, arrays(16, 10)())
    assert outcome.failures or outcome.raised, outcome
