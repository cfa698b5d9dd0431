"""Scaled launch facts at run time: `TILE * blockIdx.x + threadIdx.y` (proven at launch with
`a.shape[0] + 15 >= blockDim.y + 16 * gridDim.x`) and an augmented assignment through it. A
launch that holds runs without the check and computes what NumPy does; one that breaks the
predicate by one element is checked and reports the access. Simulator, and GPU with -m gpu."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

TILE = 16


@safekern.jit
def rows_plus_one(a, w):
    by = cuda.blockIdx.x
    ty = cuda.threadIdx.y
    tx = cuda.threadIdx.x
    row = TILE * by + ty + 1
    w[row, tx] += a[row]


def _launch(rows, grid):
    a = np.arange(rows, dtype=np.float64)
    w = np.zeros((rows, 4))
    da, dw = cuda.to_device(a), cuda.to_device(w)
    rows_plus_one[grid, (4, TILE)](da, dw)
    return a, da, dw


def test_the_predicate_holds_for_just_enough_rows():
    [(status, predicate)] = {(str(e.status), e.predicate)
                             for e in rows_plus_one.check_report() if e.array == "a"}
    assert status == "proven at launch"
    assert predicate == "a.shape[0] + 15 >= blockDim.y + 16 * gridDim.x"
    a, _, dw = _launch(3 * TILE + 1, 3)          # rows 1 .. 48: all there
    expected = np.zeros((3 * TILE + 1, 4))
    expected[1:] = a[1:, None]
    np.testing.assert_array_equal(dw.copy_to_host(), expected)


def test_one_row_short_is_checked_and_reported():
    _launch(3 * TILE, 3)                         # row 48 is one past the end
    assert_bounds_error(array="w", index=3 * TILE, size=3 * TILE, kernel="rows_plus_one")


@safekern.jit
def copy_explicit(a, out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[i] = a[i]


def test_the_explicit_grid_position_holds_and_breaks():
    preds = {e.predicate for e in copy_explicit.check_report() if e.array} - {""}
    assert preds == {"a.shape[0] >= cuda.gridsize(1)", "out.shape[0] >= cuda.gridsize(1)"}
    a = cuda.to_device(np.arange(64.0))
    out = cuda.to_device(np.zeros(64))
    copy_explicit[2, 32](a, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(64.0))
    short = cuda.to_device(np.zeros(63))
    copy_explicit[2, 32](a, short)
    assert_bounds_error(array="out", index=63, size=63, kernel="copy_explicit")
