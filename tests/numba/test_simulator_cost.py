"""The simulator's cost of a checked access (issue 29: a pair-counting kernel ran 10x slower
checked than plain on the simulator, 14.5 s against 1.4 s). The check helpers read an array's
shape through the in-kernel wrapper's `__getattr__` -- NumPy's attribute behind two wrappers
and a sync-point hook -- five times per access; an in-bounds access now costs no such call
beyond what the plain kernel's own subscript makes. Counted, not timed: a loaded machine
changes timings, not counts."""
import numpy as np
import pytest
from numba import cuda

from tests.support.checks import load_kernel_module
from tests.support.settings import safekern_setting

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

SOURCE = """
    from numba import cuda

    def pairs(x, r2, counts, n, dims):
        i = cuda.grid(1)
        if i < x.shape[0]:
            c = 0
            for j in range(n):
                d = 0.0
                for k in range(dims):
                    t = x[i, k] - x[j, k]
                    d += t * t
                if d < r2:
                    c += 1
            counts[i] = c
"""


def _getattr_calls(monkeypatch, kernel, *args):
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    calls = [0]
    current = FakeCUDAArray.__getattr__

    def counting(self, name):
        calls[0] += 1
        return current(self, name)

    monkeypatch.setattr(FakeCUDAArray, "__getattr__", counting)
    try:
        kernel[1, 8](*args)
    finally:
        monkeypatch.setattr(FakeCUDAArray, "__getattr__", current)
    return calls[0]


def test_an_in_bounds_checked_access_reads_no_array_attribute(tmp_path, monkeypatch):
    import safekern

    module = load_kernel_module(tmp_path, SOURCE, "sim_cost")
    with safekern_setting(monkeypatch, "SAFEKERN_ELIMINATE", "0"):     # every access checked
        checked = safekern.jit(module.pairs)
        plain = cuda.jit(module.pairs)
        x = cuda.to_device(np.random.default_rng(0).random((8, 3)).astype(np.float32))
        counts = cuda.device_array(8, np.int64)
        args = (x, 0.5, counts, 8, 3)
        checked[1, 8](*args)                  # built; the counts below are one launch's
        accesses = 8 * 8 * 3 * 2              # threads * pairs * dims * loads
        plain_calls = _getattr_calls(monkeypatch, plain, *args)
        expected = counts.copy_to_host()
        checked_calls = _getattr_calls(monkeypatch, checked, *args)
        # A few per thread at most (the launch's own), not per access.
        assert checked_calls <= plain_calls + 8 * 4, (checked_calls, plain_calls, accesses)
        np.testing.assert_array_equal(counts.copy_to_host(), expected)
        assert expected.sum() >= 8            # each point is its own pair at least
