"""A RawKernel's `args` taken as CuPy takes them (issue 30 item 4), on the stand-in `cupy` of
test_cuda_c_launch.py: CuPy's launch does `len(args)` and `for a in args` (function.pyx), so a
bare array (its rows), a list, any sized iterable; the driver reads one argument per parameter.
"""
import numpy as np
import pytest

import safekern
from tests.cupy.test_cuda_c_launch import FakeArray, FakeCupy, fake_cupy  # noqa: F401
from tests.support.settings import safekern_setting

pytestmark = pytest.mark.nvrtc


@pytest.fixture(autouse=True)
def _checked_launches(monkeypatch):
    """Every launch here runs the checked kernel (with its hidden sizes, which the tests
    read): no plain launch of the user's own binary where a launch proves every check."""
    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        yield

# As cupyx's Delaunay kerInitPredicate: one pointer, written well past its first element.
INIT = r"""
extern "C" __global__ void init(double* consts) {
    for (int i = 0; i < 18; i++) consts[i] = 0.5 * i;
}
"""
SCALE = r"""
struct pair { float a; int b; };
extern "C" __global__ void scale(float* out, float f, long long n, pair p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f * p.a + p.b;
}
"""


def _launched():
    (name, args), = FakeCupy.launches
    FakeCupy.launches.clear()
    return name, args


def _ptr(arr):
    return arr.data.ptr


def test_a_bare_array_is_its_rows_each_reaching_to_the_arrays_end(fake_cupy):
    import safekern.cupy as skcp

    consts = FakeArray(np.zeros(18))
    k = skcp.RawKernel(INIT, "init")
    k((1,), (1,), (consts))                      # cupyx's spelling: no comma, no tuple
    name, args = _launched()
    # the first row stands for the pointer; the 17 others are extra and dropped, as the
    # driver reads one argument; its size is the whole array's, not one element's
    assert (name, _ptr(args[0]), int(args[1])) == ("init", _ptr(consts), 18 * 8)
    assert len(args) == 3                        # pointer, its size, the failure buffer
    grid = FakeArray(np.zeros((4, 5)))
    k((1,), (1,), grid[2:])
    _, args = _launched()
    assert (_ptr(args[0]), int(args[1])) == (_ptr(grid[2]), 2 * 5 * 8)


def test_lists_and_sized_iterables_as_cupy_and_its_errors(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(SCALE, "scale")
    pair = np.zeros((), np.dtype([("a", np.float32), ("b", np.int32)]))[()]   # np.void
    out = cp.zeros(8)
    scalars = (np.float32(2.0), 8, pair)
    k((1,), (8,), [out, *scalars])
    _, args = _launched()
    # scalars reach CuPy's launch as given: CuPy makes their bytes (_scalar.CScalar)
    assert args[0] is out and all(a is b for a, b in zip(args[1:4], scalars))
    k((1,), (8,), (out, *scalars, "extra", 7))  # extra arguments: not read, as by the driver
    assert len(_launched()[1]) == 6
    with pytest.raises(TypeError, match="has no len"):
        k((1,), (8,), (a for a in (out, *scalars)))          # CuPy: len(args) fails too
    with pytest.raises(TypeError, match="unsized"):
        k((1,), (8,), FakeArray(np.float32(1.0)))             # a 0-d array, as CuPy
    with pytest.raises(TypeError, match=r"takes 4 arguments \(out, f, n, p\), got 2"):
        k((1,), (8,), (out, 2.0))                # CuPy would read what the slots hold
    assert not FakeCupy.launches


def test_a_raw_address_runs_unchecked_with_a_warning(fake_cupy):
    import safekern.cupy as skcp

    k = skcp.RawKernel(INIT, "init")
    with pytest.warns(safekern.UncheckedWarning, match=r"argument 0 \('consts'\).*raw address"):
        k((1,), (1,), (np.uint64(0xdead0000),))
    _, args = _launched()
    assert int(args[0]) == 0xdead0000 and int(args[1]) == -1
    assert [e.array for e in k.check_report().unchecked] == ["consts"]


def test_a_negative_stride_view_runs_unchecked_with_a_warning(fake_cupy):
    # cupyx's upfirdn passes x[::-1] with its (negative) stride: valid for CuPy, so it runs;
    # a size counted from the pointer cannot bound it, so not checked, and said
    import safekern.cupy as skcp

    k = skcp.RawKernel(INIT, "init")
    x = FakeArray(np.zeros(18))
    with pytest.warns(safekern.UncheckedWarning, match=r"'consts'.*negative stride"):
        k((1,), (1,), (x[::-1],))
    _, args = _launched()
    assert _ptr(args[0]) == _ptr(x[::-1]) == _ptr(x) + 17 * 8 and int(args[1]) == -1
    assert [e.array for e in k.check_report().unchecked] == ["consts"]
    k((1,), (1,), (x[::2],))                     # a positive stride stays checked
    _, args = _launched()
    assert int(args[1]) == 8 * 16 + 8        # its span: 9 elements 16 bytes apart
