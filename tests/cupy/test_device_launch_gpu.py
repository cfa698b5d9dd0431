"""Dynamic parallelism on the GPU (issue 23): a kernel launched from a kernel (CuPy's `-dc`) is
checked, bounded by the bytes its argument reaches in the parent's array; a failure in the child
names the child's line and the array, and CuPy's result comes out otherwise.
"""
import pytest

from tests.support.cupy_device import cupy_with_a_device

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(180, method="thread")]

# As CuPy's test_raw.py _test_source4: each parent thread launches a child on its chunk; the
# child writes `extra` elements past it.
SOURCE = r"""
extern "C" {
__global__ void inner(float* arr, int n, int extra) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n + extra)
        arr[tid] = 1.0f;
}
__global__ void outer(float* arr, int n, int chunk, int extra) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n / chunk)
        inner<<<1, chunk + extra>>>(arr + tid * chunk, chunk, extra);
}
}
"""
LINE = SOURCE[:SOURCE.index("arr[tid] = 1.0f")].count("\n") + 1


def test_a_child_kernel_runs_checked_and_gives_cupys_result():
    k = skcp.RawKernel(SOURCE, "outer", options=("-dc",))
    x = cp.zeros(169, cp.float32)
    k((1,), (13,), (x, 169, 13, 0))
    safekern.sync()
    assert bool((x == 1.0).all())


def test_a_child_writing_past_the_parents_array_is_reported():
    k = skcp.RawKernel(SOURCE, "outer", options=("-dc",))
    x = cp.zeros(169, cp.float32)
    with pytest.raises(safekern.BoundsError) as info:
        k((1,), (13,), (x, 169, 13, 1))   # the last chunk's child writes x[169]
        safekern.sync()
    err = info.value
    # the child's bound is what its pointer reaches in x: 13 elements from the last chunk
    assert (err.kernel, err.lineno, err.array, err.index, err.size) == (
        "inner", LINE, "arr", 13, 13)
