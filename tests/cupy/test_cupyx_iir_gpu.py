"""A bug of cupyx found by safekern (issue 30): scipy.signal's IIR utilities read past the
signal (cupyx/scipy/signal/_iir_utils.py, first_pass_iir, v14.2.0 and CuPy's main of 2026-08).

cupyx's own module, made by safekern.cupy.RawModule, with the arguments of CuPy's test
`TestIIRUtils::test_order[5-120]` (120 samples, order 5, blocks of 32): the thread that leaves
the scan loop by its `break` (its position past the signal's end) still stores its carries,
reading `group_start[pos]` = out[123] of 120. The fix proposed upstream (docs/compatibility.md)
stores them only for a position inside the signal: then no failure, and cupyx's result.
cupyx is CuPy's, installed on the GPU machine; nothing of it is copied here.
"""
import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device, cupyx_module_checked

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]

BUGGY = "    if(pos >= m - k) {\n        if(carries != NULL) {\n            group_carries"
FIXED = "    if(pos >= m - k && pos + m * group_num < n) {\n        if(carries != NULL) {\n" \
        "            group_carries"


@pytest.fixture
def iir(monkeypatch):
    """cupyx's _iir_utils with its modules made by safekern's RawModule."""
    yield from cupyx_module_checked(monkeypatch, "cupyx.scipy.signal",
                                    "cupyx.scipy.signal._iir_utils")


def _signal():
    rng = np.random.default_rng(5)
    x = cp.asarray(rng.uniform(-0.5, 0.5, 120))
    a = cp.asarray(np.r_[1.0, rng.uniform(-0.2, 0.2, 5)])
    return x, a


def test_first_pass_iir_reads_past_the_signal(iir):
    assert BUGGY in iir.IIR_KERNEL
    x, a = _signal()
    with pytest.raises(safekern.BoundsError) as info:
        iir.apply_iir(x, -a[1:], dtype=cp.float64, block_sz=32).get()
    err = info.value
    line = iir.IIR_KERNEL[:iir.IIR_KERNEL.index("= group_start[pos];")].count("\n") + 1
    assert (err.kernel.split("<")[0], err.lineno, err.index, err.size) == (
        "first_pass_iir", line, 123, 120)


def test_the_proposed_fix_removes_it(iir, monkeypatch):
    signal = pytest.importorskip("scipy.signal")
    monkeypatch.setattr(iir, "IIR_MODULE", skcp.RawModule(
        code=iir.IIR_KERNEL.replace(BUGGY, FIXED),
        name_expressions=iir.IIR_MODULE.name_expressions))
    x, a = _signal()
    got = iir.apply_iir(x, -a[1:], dtype=cp.float64, block_sz=32).get()
    safekern.sync()
    want = signal.lfilter(np.ones(1), a.get(), x.get())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
