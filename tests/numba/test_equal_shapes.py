"""Arrays chosen among parameters (frontend/python/aliases.py) and `len(a)` (index_forms.py),
at run time. numba's documented heat equation swaps two buffers: with equal shapes every
access is proven at launch and the kernel computes what NumPy does; with a shorter second
buffer the checks run and the planted out-of-bounds access is reported. A name also bound to
something else than a parameter is no alias. Simulator."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(180)]


@safekern.jit
def heat(buf_0, buf_1, timesteps, k):
    """numba-cuda's docs (test_laplace.py), without the grid group: one step per launch."""
    i = cuda.grid(1)
    if i >= len(buf_0):
        return
    for step in range(timesteps):
        if (step % 2) == 0:
            data = buf_0
            next_data = buf_1
        else:
            data = buf_1
            next_data = buf_0
        curr_temp = data[i]
        if i == 0:
            next_temp = curr_temp + k * (data[i + 1] - (2 * curr_temp))
        elif i == len(data) - 1:
            next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp))
        else:
            next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp) + data[i + 1])
        next_data[i] = next_temp


def _reference(buf, k):
    out = buf.copy()
    out[0] = buf[0] + k * (buf[1] - 2 * buf[0])
    out[-1] = buf[-1] + k * (buf[-2] - 2 * buf[-1])
    out[1:-1] = buf[1:-1] + k * (buf[:-2] - 2 * buf[1:-1] + buf[2:])
    return out


def test_every_access_is_proven_at_launch_with_equal_shapes():
    report = [e for e in heat.check_report() if e.kind in ("load", "store")]
    assert {str(e.status) for e in report} == {"proven at launch", "eliminated"}, \
        [(e.text, str(e.status)) for e in report]
    equal = "buf_1.shape[0] >= buf_0.shape[0] and buf_0.shape[0] >= buf_1.shape[0]"
    assert {e.text for e in report if equal in e.predicate} >= {"data[i]", "next_data[i]"}
    buf = np.random.default_rng(1).random(64)
    d0, d1 = cuda.to_device(buf), cuda.to_device(np.zeros(64))
    heat[2, 32](d0, d1, 1, 0.25)
    np.testing.assert_allclose(d1.copy_to_host(), _reference(buf, 0.25))


def test_a_shorter_second_buffer_is_checked_and_reported():
    d0, d1 = cuda.to_device(np.ones(64)), cuda.to_device(np.zeros(40))
    heat[2, 32](d0, d1, 1, 0.25)
    assert_bounds_error(array="next_data", index=None, size=40, kernel="heat")


@safekern.jit
def mixed(a, b, out):
    """`src` is also bound to a slice: no alias, its accesses stay checked."""
    i = cuda.grid(1)
    if i >= len(a):
        return
    src = a
    if i % 2 == 0:
        src = b
    if i == 3:
        src = a[1:]
    out[i] = src[i]


def test_a_name_bound_to_a_slice_is_no_alias():
    [entry] = [e for e in mixed.check_report() if e.text == "src[i]"]
    assert str(entry.status) == "checked"
    a = cuda.to_device(np.arange(8.0))
    mixed[1, 8](a, cuda.to_device(np.arange(8.0)), cuda.to_device(np.zeros(8)))
    safekern.sync()
    mixed[1, 8](a, cuda.to_device(np.arange(8.0)), cuda.to_device(np.zeros(8)))
    # (thread 7 reads a[1:][7], one past the end of the slice)


@safekern.jit
def rows_by_len(a, out):
    i = cuda.grid(1)
    if i < len(a) and i < len(out):
        out[i] = a[i]


def test_len_of_an_array_is_its_rows():
    assert {str(e.status) for e in rows_by_len.check_report()
            if e.kind in ("load", "store")} == {"eliminated"}
    a = cuda.to_device(np.arange(10.0))
    out = cuda.to_device(np.zeros(10))
    rows_by_len[1, 16](a, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(10.0))


def _shadowing():
    @safekern.jit(device=True)      # (a device function: numba calls no Python function)
    def len(x):        # noqa: A001 -- a closure variable shadows the builtin
        return 1 << 20

    @safekern.jit
    def shadowed(a, out):
        i = cuda.grid(1)
        if i < len(a):
            out[i] = a[i]
    return shadowed


shadowed = _shadowing()


def test_a_shadowed_len_is_not_read_as_rows():
    [entry] = [e for e in shadowed.check_report() if e.text == "a[i]"]
    assert str(entry.status) != "eliminated"         # (proven at launch: a.shape[0] >= grid)
    shadowed[1, 16](cuda.to_device(np.arange(10.0)), cuda.to_device(np.zeros(10)))
    assert_bounds_error(array="a", index=None, size=10, kernel="shadowed")


@safekern.jit
def pick(a, b, out, flag):
    i = cuda.grid(1)
    if i >= len(a) or i >= len(out):
        return
    if flag == 0:
        src = a
    else:
        src = b
    out[i] = src[i]


@pytest.mark.parametrize("short", ["a", "b"])
def test_either_buffer_shorter_is_checked(short):
    [entry] = [e for e in pick.check_report() if e.text == "src[i]"]
    assert entry.predicate == "b.shape[0] >= a.shape[0] and a.shape[0] >= b.shape[0]"
    a = np.arange(64.0) if short == "b" else np.arange(40.0)
    b = np.arange(40.0) if short == "b" else np.arange(64.0)
    out = cuda.to_device(np.zeros(64))
    pick[2, 32](cuda.to_device(a), cuda.to_device(b), out, 0)
    np.testing.assert_array_equal(out.copy_to_host()[:len(a)], a)
    pick[2, 32](cuda.to_device(a), cuda.to_device(b), out, 1)
    if short == "b":
        assert_bounds_error(array="src", index=None, size=40, kernel="pick")
    else:
        np.testing.assert_array_equal(out.copy_to_host()[:40], b[:40])
