"""Scalar parameters assumed bounded at launch (frontend/python/aliases.py): pathfinder's
`blk_x = small_block_cols * blockIdx.x - border` is exact arithmetic only where the scalars
are Python ints of at most 2**24 in magnitude, which the launch checks. A launch with a larger
or a NumPy scalar runs the checked kernel; a window one element short stays checked and the
planted out-of-bounds access is reported. Simulator."""
import numpy as np
import pytest
from numba import cuda

import safekern
from safekern.backends.numba.predicates import compile_mask
from tests.support.checks import assert_bounds_error
from tests.support.differential import SIMULATOR

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(180)]

BOUNDS = ("shift >= -16777216 and shift <= 16777216 and width >= -16777216 and "
          "width <= 16777216")


@safekern.jit
def window(a, out, width, shift):
    i = cuda.threadIdx.x
    base = width * cuda.blockIdx.x - shift
    top = base + 31
    if base >= 0 and top <= a.shape[0] - 1 and top <= out.shape[0] - 1 and i < 32:
        out[base + i] = a[base + i]


@safekern.jit
def window_short(a, out, width, shift):
    i = cuda.threadIdx.x
    base = width * cuda.blockIdx.x - shift
    top = base + 30
    if base >= 0 and top <= a.shape[0] - 1 and i < 32:
        out[i] = a[base + i]


def _entry(kernel, text):
    [entry] = [e for e in kernel.check_report() if e.text == text]
    return entry


def test_the_window_is_proven_with_bounded_scalars_and_copies():
    entry = _entry(window, "a[base + i]")
    assert str(entry.status) == "proven at launch" and BOUNDS in entry.predicate
    a = np.arange(100.0)
    out = cuda.to_device(np.zeros(100))
    window[3, 32](cuda.to_device(a), out, 32, 0)
    np.testing.assert_array_equal(out.copy_to_host()[:96], a[:96])


@pytest.mark.parametrize("width, holds", [(32, True), (2 ** 30, False),
                                          (np.int64(32), not SIMULATOR), (32.0, False)])
def test_the_bounds_hold_for_small_python_ints_only(width, holds):
    """(A NumPy signed scalar counts on a GPU only: test_numpy_signed_scalars_count_on_a_gpu_only.)"""
    predicates = window.build.final_rewrite().launch_predicates
    args = (np.zeros(100), np.zeros(100), width, 0)
    mask = compile_mask(predicates)(args, (3, 32))
    bits = [p.text() for i, p in enumerate(predicates) if mask >> i & 1]
    assert ("width <= 16777216" in bits) == holds


def test_a_window_one_short_is_checked_and_reported():
    entry = _entry(window_short, "a[base + i]")
    assert str(entry.status) != "eliminated" and "blockDim.x <= 31" in entry.predicate
    window_short[1, 32](cuda.to_device(np.arange(31.0)), cuda.to_device(np.zeros(32)), 0, 0)
    assert_bounds_error(array="a", index=31, size=31, kernel="window_short")


def test_numpy_signed_scalars_count_on_a_gpu_only(monkeypatch):
    from safekern.backends.numba import predicates
    predicates_of = window.build.final_rewrite().launch_predicates
    args = (np.zeros(100), np.zeros(100), np.int32(32), np.int64(0))
    holds = lambda: compile_mask(predicates_of)(args, (3, 32)) == (1 << len(predicates_of)) - 1  # noqa: E731
    monkeypatch.setattr(predicates.numba_config, "ENABLE_CUDASIM", 1)
    assert not holds()                      # the simulator: NumPy's int32 may wrap
    monkeypatch.setattr(predicates.numba_config, "ENABLE_CUDASIM", 0)
    assert holds()
    args = (np.zeros(100), np.zeros(100), np.uint64(32), 0)
    assert compile_mask(predicates_of)(args, (3, 32)) != (1 << len(predicates_of)) - 1
