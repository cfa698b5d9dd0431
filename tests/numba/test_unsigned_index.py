"""Unsigned indices of 2**63 and more (issue 29): an unsigned `0 - 1` is index 2**64 - 1, and
the message gives that index, the axis' size and the failing thread -- the simulator once
reported `index 0 ... size 0 ... thread (0, 0, 0)` (the value did not fit its int64 slot and
the record was left half written); on the GPU the int64 slot read back as -1. Runs on the
simulator, and on the GPU under `pytest -m gpu` (the numba intrinsics' record)."""
import numpy as np
import pytest
from numba import cuda, types

import safekern
from safekern import failures

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


@safekern.jit
def back_one(out, src, j):
    i = cuda.grid(1)
    if i < out.shape[0] and i == 5:
        out[i] = src[j - types.uint64(1)]


@safekern.jit
def at_unsigned(out, src, j):
    i = cuda.grid(1)
    if i < out.shape[0] and i == 3:
        src[j] = out[i]


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_unsigned_zero_minus_one_is_reported_as_itself():
    out = cuda.device_array(8, dtype=np.float32)
    back_one[1, 8](out, cuda.to_device(np.arange(16, dtype=np.float32)), np.uint64(0))
    with pytest.raises(safekern.BoundsError) as info:
        out.copy_to_host()
    err = info.value
    assert (err.index, err.size, err.axis, err.array) == (2**64 - 1, 16, 0, "src"), str(err)
    assert err.thread == (5, 0, 0) and err.block == (0, 0, 0), str(err)
    assert "index 18446744073709551615 out of bounds for axis 0 with size 16" in str(err)


def test_uint64_index_of_2_63_on_a_store():
    src = cuda.to_device(np.zeros(10, dtype=np.float32))
    at_unsigned[1, 4](cuda.device_array(4, dtype=np.float32), src, np.uint64(2**63))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.index, err.size, err.thread) == (2**63, 10, (3, 0, 0)), str(err)


def test_the_buffer_reads_unsigned_slots_back():
    """The host side of the encoding (failures.UNSIGNED), as every backend writes it."""
    site = failures.TABLE.register(failures.FailureSite(
        code=failures.site_code("test_unsigned_index", 1), kind="bounds", kernel="k",
        filename="k.py", lineno=1, source_line="a[i]", col=2, end_col=3, array="a", axis=0))
    values = [0] * failures.BUFFER_LEN
    values[failures.CODE] = site.code
    values[failures.INDEX], _ = failures.slot_value(2**64 - 1)
    values[failures.SIZE] = 7
    values[failures.THREAD] = 2
    plain = failures.exception_from_buffer(values)
    assert plain.index == -1                        # a signed -1 stays -1
    values[failures.UNSIGNED] = 1
    err = failures.exception_from_buffer(values)
    assert (err.index, err.size, err.thread) == (2**64 - 1, 7, (2, 0, 0))
    values[failures.INDEX] = 5                      # the bit changes nothing below 2**63
    assert failures.exception_from_buffer(values).index == 5
