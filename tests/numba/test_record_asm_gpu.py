"""The failure record as one inline asm (backends/numba/lowering.py, record_asm) on a GPU: a
failing permutation-table gather, a read nothing uses, and a failure of the second component of
a 2-D index are each reported with their array, axis, index, size, thread and block; a kernel
whose checks all pass gives numba's result. Kernels: tests/numba/numba_kernels.py."""
import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def mod():
    from tests.numba import numba_kernels

    return numba_kernels


def _failure():
    import safekern

    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    return info.value


def test_table_gathers_give_numbas_result_and_report_the_gather(mod):
    from numba import cuda

    import safekern

    p = np.arange(64, dtype=np.int64)[::-1].copy()
    out = cuda.to_device(np.zeros(32, np.int64))
    dp = cuda.to_device(p)
    mod.table_gathers[1, 32](out, dp, -20)          # p[x] is 63 - x: every gather in bounds
    safekern.sync()
    x = np.arange(32)
    np.testing.assert_array_equal(out.copy_to_host(), p[p[x] - 20] + p[p[x] - 19])
    mod.table_gathers[1, 32](out, dp, 10)           # p[x] + 10 is 73 - x: past the end for x <= 10
    err = _failure()
    assert (err.array, err.axis, err.size) == ("p", 0, 64)
    assert err.index >= 64 and err.block == (0, 0, 0) and err.thread[0] <= 10


def test_a_read_nothing_uses_is_reported(mod):
    from numba import cuda

    out = cuda.to_device(np.zeros(16, np.float32))
    a = cuda.to_device(np.zeros(16, np.float32))
    mod.unused_read[1, 16](out, a, 100)
    err = _failure()
    assert (err.array, err.axis, err.size) == ("a", 0, 16)
    assert 100 <= err.index < 116


def test_the_second_component_is_reported_with_its_axis(mod):
    from numba import cuda

    out = cuda.to_device(np.zeros((8, 8), np.float32))
    a = cuda.to_device(np.ones((8, 8), np.float32))
    mod.add2d[(1, 1), (8, 8)](out, a, 0, 3)
    err = _failure()
    assert (err.array, err.axis, err.size) == ("a", 1, 8)
    assert 8 <= err.index < 11
