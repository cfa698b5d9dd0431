"""Body versioning end to end (frontend/python/body_versioning.py): a device function whose
indices are all known on entry runs unchecked behind one test, and its checked copy where the
test fails -- the results are NumPy's, and a failing access is still reported where it is, with
its index, size and thread. On the CUDA simulator without a GPU; `pytest -m gpu` runs them on
the device (the `cudasim` marker becomes `gpu`)."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import body_versioning_kernels as K
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def _fields(nz=6, nr=5):
    rng = np.random.default_rng(7)
    return [rng.standard_normal((nz, nr)) for _ in range(3)]


def _corners(Fr, Ft, Fz, iz, ir, w=0.5):
    acc = w * Fr[iz, ir] + w * Ft[iz, ir] + w * Fz[iz, ir + 1] + w * Fr[iz + 1, ir + 1]
    return acc + (Ft[iz + 1, 0] if ir == 0 else 0.0)


def _run(izs, irs, kernel=None):
    Fr, Ft, Fz = _fields()
    out = cuda.to_device(np.zeros(len(izs)))
    (kernel or K.gather_corners)[1, len(izs)](*(cuda.to_device(f) for f in (Fr, Ft, Fz)),
                                              cuda.to_device(np.asarray(izs, np.int64)),
                                              cuda.to_device(np.asarray(irs, np.int64)), out)
    return (Fr, Ft, Fz), out


def test_indices_known_on_entry_give_numpys_results():
    # inside, on the guard branch (ir == 0), and negative indices (numba wraps them: the entry
    # test's own condition, -n <= i < n)
    izs, irs = [0, 1, 4, 2, -3, -6], [0, 3, 1, 0, -2, -5]
    fields, out = _run(izs, irs)
    safekern.sync()
    want = [_corners(*fields, iz, ir) for iz, ir in zip(izs, irs)]
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-12)


def test_a_failing_index_is_reported_where_it_fails():
    # iz + 1 == 6 is outside axis 0 (size 6) first at Fr[iz + 1, ir + 1]; thread 2 has it
    _run([0, 1, 5, 2], [1, 1, 1, 1])
    assert_bounds_error(filename=K.__file__, lineno=K.expected_line("corners_first") + 3,
                        array="Fr", axis=0, index=6, size=6, thread=(2, 0, 0),
                        kernel="corners")


def test_the_first_failing_access_in_the_body_is_the_one_reported():
    # ir = 4: Fz[iz, ir + 1] (axis 1, index 5, size 5) fails before Fr[iz + 1, ir + 1]
    _run([0, 1, 2, 3], [0, 4, 0, 0])
    assert_bounds_error(filename=K.__file__, lineno=K.expected_line("corners_upper"),
                        array="Fz", axis=1, index=5, size=5, thread=(1, 0, 0))


def test_an_access_under_a_branch_is_reported_as_the_checked_body_reports_it():
    # iz = 5, ir = 0: Fr[iz + 1, ir + 1] fails before the guard branch's Ft[iz + 1, 0]
    _run([0, 5], [0, 0])
    assert_bounds_error(filename=K.__file__, lineno=K.expected_line("corners_first") + 3,
                        array="Fr", axis=0, index=6, size=6, thread=(1, 0, 0))


def test_a_tuple_index_and_a_slice_parameter():
    a = np.arange(40.0).reshape(8, 5)
    out = cuda.to_device(np.zeros(4))
    K.gather_by_index[1, 4](cuda.to_device(a), out)
    safekern.sync()
    want = [a[i, i + 1] * 4 + a[i:i + 1, 0][0] for i in range(4)]
    np.testing.assert_allclose(out.copy_to_host(), want)


def test_a_function_numba_inlines_twice_gives_numpys_results():
    izs, irs = [0, 1, 4, 2, -3], [0, 3, 1, 0, -2]
    (Fr, Ft, Fz), out = _run(izs, irs, K.gather_corners_twice)
    safekern.sync()
    want = [_corners(Fr, Ft, Fz, iz, ir) + _corners(Fz, Fr, Ft, iz, ir, 0.25)
            for iz, ir in zip(izs, irs)]
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-12)


def test_a_failure_in_a_checked_copy_of_an_inlined_function_is_reported_where_it_fails():
    # ir = 4: Fz[iz, ir + 1] fails first (axis 1, index 5 of 5), in the first call; on a GPU
    # the record is a call of the record function (backends/numba/cold_records.py)
    _run([0, 1, 2], [0, 0, 4], K.gather_corners_twice)
    assert_bounds_error(filename=K.__file__, lineno=K.expected_line("corners_upper"),
                        array="Fz", axis=1, index=5, size=5, thread=(2, 0, 0))
