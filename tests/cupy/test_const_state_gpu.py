"""Module state on a GPU (marker gpu): `__constant__` memory filled through get_global, and
`__device__` variables written by one kernel and read by another, give CuPy's results at
launches whose predicates all hold (where a launch variant, a module of its own, would have
read its own copy, never written). test_const_state.py checks the same without a GPU.

    python -m pytest tests/cupy/test_const_state_gpu.py -m gpu -v
"""
import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from tests.cupy.test_const_state import CONST_MEM, COUNTER  # noqa: E402


pytestmark = [pytest.mark.gpu, pytest.mark.timeout(180, method="thread")]

# (grid, block) for n = 100: exact, rounded up to whole blocks, one big block; each launch
# proves `k < count` keeps v[k] in bounds, so each would have run a variant.
GEOMETRIES = [((1,), (100,)), ((4,), (32,)), ((1,), (128,)), ((100,), (1,))]

BUMP = r'''
__device__ int launches;

extern "C" __global__ void bump(int* seen, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i == 0) {
        int k = atomicAdd(&launches, 1);
        if (k < n) seen[k] = k + 1;
    }
}
'''


def test_const_memory_filled_through_get_global():
    """CuPy's test_const_memory, in its steps: fill the __constant__ array through a CuPy array
    over get_global's pointer, launch one block of 100 threads, read the result."""
    mod = skcp.RawModule(code=CONST_MEM)
    kernel = mod.get_function("apply_scale")
    scale = cp.ndarray((100,), cp.float32, mod.get_global("scale"))
    expected = cp.linspace(-3, 3, 100, dtype=cp.float32)
    scale[...] = expected
    v = cp.ones(100, dtype=cp.float32)
    kernel((1,), (100,), (v, cp.int32(100)))
    assert (v == expected).all()


@pytest.mark.parametrize("grid,block", GEOMETRIES)
def test_const_memory_every_launch_and_refill(grid, block):
    mod = skcp.RawModule(code=CONST_MEM)
    ker = mod.get_function("apply_scale")
    const_arr = cp.ndarray((100,), cp.float32, mod.get_global("scale"))
    data = cp.arange(100, dtype=cp.float32)
    for scale in (1, 3, -2):                   # refilled between launches: each is seen
        const_arr[...] = scale * data
        out = cp.ones(100, dtype=cp.float32)
        ker(grid, block, (out, np.int32(100)))
        assert (out == scale * data).all(), (scale, out.get()[:8])
    safekern.sync()


def test_device_counter_written_by_one_kernel_read_by_another():
    mod = skcp.RawModule(code=COUNTER)
    count, read = mod.get_function("count"), mod.get_function("read_counter")
    counter = cp.ndarray((1,), cp.uint64, mod.get_global("counter"))
    counter[...] = 0
    x = cp.asarray(np.where(np.arange(100) % 3 == 0, 1.0, -1.0).astype(np.float32))
    positives = int((x > 0).sum())
    for i, (grid, block) in enumerate(GEOMETRIES):
        count(grid, block, (x, np.int32(100)))
        out = cp.zeros(100, dtype=cp.uint64)
        read(grid, block, (out, np.int32(100)))
        assert (out == positives * (i + 1)).all(), (i, out.get()[:4])
    assert int(counter.get()[0]) == positives * len(GEOMETRIES)
    safekern.sync()


def test_raw_kernel_device_global_survives_launches():
    """A RawKernel (no get_global) whose __device__ counter counts its launches: every
    launch, whatever its geometry, adds to the same counter."""
    k = skcp.RawKernel(BUMP, "bump")
    seen = cp.zeros(8, dtype=cp.int32)
    for grid, block in GEOMETRIES * 2:
        k(grid, block, (seen, np.int32(8)))
    assert seen.get().tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    safekern.sync()


def test_stateful_module_still_reports_out_of_bounds():
    mod = skcp.RawModule(code=CONST_MEM)
    ker = mod.get_function("apply_scale")
    out = cp.ones(100, dtype=cp.float32)
    ker((1,), (128,), (out, np.int32(128)))      # count larger than v: v[k] fails for k >= 100
    with pytest.raises(safekern.BoundsError, match="apply_scale"):
        out.get()
