"""Launch proofs by the values of a small loop variable (frontend/python/value_cases.py) and the
bounds of multiples (`ty % 2 == 0`: linear.py), at run time: backprop's shared tree reduction is
proven at launch and computes what NumPy does; where the rule must not apply -- a modulus that
does not divide the tile, a negated guard, an assignment no longer in force, a block taller than
the tile -- the access stays checked and the planted out-of-bounds access is reported. Simulator."""
import numpy as np
import pytest
from numba import cuda, float32

import safekern
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(180)]

H = 16
W = 4


def _status(kernel, text):
    [entry] = [e for e in kernel.check_report() if e.text == text]
    return str(entry.status), entry.predicate


@safekern.jit
def tree_sum(a, out):
    """backprop's bpnn_layerforward reduction: column sums of 16-row blocks."""
    tile = cuda.shared.array((H, W), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    for i in range(1, 5):
        power_two = 1 << i
        if ty % power_two == 0:
            tile[ty, tx] = tile[ty, tx] + tile[ty + power_two // 2, tx]
        cuda.syncthreads()
    if ty == 0:
        out[tx] = tile[0, tx]


def test_the_tree_reduction_is_proven_at_launch_and_sums():
    status, predicate = _status(tree_sum, "tile[ty + power_two // 2, tx]")
    assert status == "proven at launch"
    assert set(predicate.split(" and ")) == {"blockDim.y <= 16", "blockDim.x <= 4"}
    a = np.arange(H * W, dtype=np.float32).reshape(H, W)
    out = cuda.to_device(np.zeros(W, np.float32))
    tree_sum[1, (W, H)](cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), a.sum(axis=0))


def test_a_block_taller_than_the_tile_is_checked():
    a = cuda.to_device(np.zeros((2 * H, W), np.float32))
    tree_sum[1, (W, 2 * H)](a, cuda.to_device(np.zeros(W, np.float32)))
    assert_bounds_error(array="tile", index=None, size=H, kernel="tree_sum")   # a row >= 16


@safekern.jit
def thirds(out):
    """3 does not divide 16: ty = 15 is a multiple of 3 and reads row 16."""
    tile = cuda.shared.array((H, W), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = 1.0
    cuda.syncthreads()
    for i in range(1, 2):
        step = 3 * i
        if ty % step == 0:
            out[ty, tx] = tile[ty + step // 3, tx]


@safekern.jit
def negated(out):
    """`ty % 2 != 0` says ty is odd: ty = 15 reads row 16."""
    tile = cuda.shared.array((H, W), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = 1.0
    cuda.syncthreads()
    for i in range(1, 2):
        power_two = 1 << i
        if ty % power_two != 0:
            out[ty, tx] = tile[ty + power_two // 2, tx]


@safekern.jit
def rebound(out):
    """`power_two` doubles after the test is made of `1 << i`: ty = 14 reads row 16."""
    tile = cuda.shared.array((H, W), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = 1.0
    cuda.syncthreads()
    for i in range(1, 2):
        power_two = 1 << i
        power_two = power_two * 2
        if ty % (1 << i) == 0:
            out[ty, tx] = tile[ty + power_two // 2, tx]


@pytest.mark.parametrize("kernel, text, index", [
    (thirds, "tile[ty + step // 3, tx]", H),
    (negated, "tile[ty + power_two // 2, tx]", H),
    (rebound, "tile[ty + power_two // 2, tx]", H),
])
def test_where_the_rule_does_not_apply_the_access_is_checked(kernel, text, index):
    status, _ = _status(kernel, text)
    assert status in ("checked", "hoisted")
    kernel[1, (W, H)](cuda.to_device(np.zeros((H, W), np.float32)))
    assert_bounds_error(array="tile", index=index, size=H, kernel=kernel.__name__)


@safekern.jit
def south(a, out):
    """srad's neighbour: the row below, except in the tile's last row."""
    tile = cuda.shared.array((H, W), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    if ty == H - 1:
        out[ty, tx] = 0.0
    else:
        out[ty, tx] = tile[ty + 1, tx]


@safekern.jit
def south_off_by_one(a, out):
    """The test names the wrong row: ty = 15 reads row 16."""
    tile = cuda.shared.array((H, W), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    if ty == H - 2:
        out[ty, tx] = 0.0
    else:
        out[ty, tx] = tile[ty + 1, tx]


def test_the_neighbour_below_is_proven_with_the_tiles_block_bound():
    status, predicate = _status(south, "tile[ty + 1, tx]")
    assert status == "proven at launch"
    assert set(predicate.split(" and ")) == {"blockDim.y <= 16", "blockDim.x <= 4"}
    a = np.arange(H * W, dtype=np.float32).reshape(H, W)
    out = cuda.to_device(np.zeros((H, W), np.float32))
    south[1, (W, H)](cuda.to_device(a), out)
    expected = np.zeros((H, W), np.float32)
    expected[:-1] = a[1:]
    np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_the_wrong_row_excepted_is_checked():
    status, _ = _status(south_off_by_one, "tile[ty + 1, tx]")
    assert status == "checked"
    south_off_by_one[1, (W, H)](cuda.to_device(np.zeros((H, W), np.float32)),
                                cuda.to_device(np.zeros((H, W), np.float32)))
    assert_bounds_error(array="tile", index=H, size=H, kernel="south_off_by_one")
