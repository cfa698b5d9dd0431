"""safekern.cupy.ElementwiseKernel on a GPU (marker gpu): correct kernels give cupy's results
(broadcasting, types, size=, outputs, preamble, loop_prep, options); planted out-of-bounds
subscripts of raw arguments raise located BoundsErrors at the next sync point.

    python -m pytest tests/cupy/test_elementwise_gpu.py -m gpu -v
"""
import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402


pytestmark = [pytest.mark.gpu, pytest.mark.timeout(180, method="thread")]

# (in_params, out_params, operation, name, kwargs, args builder, call kwargs)
CORRECT = [
    ("T x, T y", "T z", "z = x + y", "add", {}, lambda: (cp.arange(10, dtype=cp.float32),
                                                         cp.float32(2)), {}),
    ("T x, raw T w", "T y", "y = x * w[i % 3]", "wmul", {},
     lambda: (cp.arange(12, dtype=cp.int32), cp.asarray([1, 2, 3], dtype=cp.int32)), {}),
    ("raw T x", "T y", "y = x[i + 1] - x[i]", "diff", {},
     lambda: (cp.arange(10, dtype=cp.float64) ** 2,), {"size": 9}),
    ("raw T m", "T y", "y = m[{(int)(i / 4), (int)(i % 4)}] * K", "grid", {
        "options": ("-DK=3",)}, lambda: (cp.arange(12, dtype=cp.float32).reshape(3, 4),),
     {"size": 12}),
    ("T x", "raw T y", "y[_ind.size() - 1 - i] = twice(x)", "rev", {
        "preamble": "template <class T> __device__ T twice(T v) { return v + v; }"},
     lambda: (cp.arange(8, dtype=cp.float32), cp.zeros(8, dtype=cp.float32)), {}),
    ("T x, T y", "T z", "z = x * y + acc", "prep", {"loop_prep": "float acc = 1.5f"},
     lambda: (cp.ones((2, 3), dtype=cp.float32), cp.arange(3, dtype=cp.float32)), {}),
]


@pytest.mark.parametrize("case", CORRECT, ids=[c[3] for c in CORRECT])
def test_correct_kernels_give_cupys_results(case):
    ins, outs, op, name, kw, make, call = case
    args = make()
    mine = skcp.ElementwiseKernel(ins, outs, op, name, **kw)(*args, **call)
    plain = cp.ElementwiseKernel(ins, outs, op, name, **kw)(*make(), **call)
    assert mine.dtype == plain.dtype and mine.shape == plain.shape
    cp.testing.assert_array_equal(mine, plain)
    safekern.sync()


def test_shift_past_the_end_is_located():
    x = cp.arange(10, dtype=cp.float32)
    shift = skcp.ElementwiseKernel("raw T x", "T y", "y = x[i + 1]", "shift")
    cp.testing.assert_array_equal(shift(x, size=9), x[1:])      # right: no error
    (entry,) = shift.check_report()
    assert (entry.text, entry.array, entry.status, entry.lineno) == ("x[i + 1]", "x",
                                                                    "checked", 1)
    safekern.sync()
    y = shift(x, size=10)                                         # planted: x[10]
    with pytest.raises(safekern.BoundsError) as info:
        y.get()
    err = info.value
    assert (err.kernel, err.array, err.index, err.size, err.lineno) == ("shift", "x", 10, 10, 1)
    assert "test_elementwise_gpu.py" in err.filename and "operation" in err.filename
    assert err.col == 6 and err.end_col == 11
    # the next launch runs normally
    cp.testing.assert_array_equal(shift(x, size=9), x[1:])
    safekern.sync()


def test_multi_axis_index_names_its_axis():
    m = cp.zeros((3, 4), dtype=cp.float32)
    k = skcp.ElementwiseKernel("raw T m", "T y", "\ny = m[{(int)i % 3, 1 + (int)i}];", "diag")
    y = k(m, size=4)                                   # i = 3 -> m[0, 4]: axis 1 of size 4
    with pytest.raises(safekern.BoundsError) as info:
        y.get()
    err = info.value
    assert (err.array, err.axis, err.index, err.size, err.lineno) == ("m", 1, 4, 4, 2)


def test_negative_index_and_raw_output():
    k = skcp.ElementwiseKernel("T x", "raw T y", "y[i - 1] = x", "back")
    x, y = cp.arange(4, dtype=cp.int32), cp.zeros(4, dtype=cp.int32)
    k(x, y)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.index, info.value.size) == ("y", -1, 4)


def test_loop_prep_and_after_loop_are_checked():
    k = skcp.ElementwiseKernel("raw T x", "T y", "y = x[i] + first", "edges",
                               loop_prep="T first = x[_ind.size()]",
                               after_loop="if (threadIdx.x == 0) (void)x[0]")
    y = k(cp.arange(5, dtype=cp.float32), size=5)
    with pytest.raises(safekern.BoundsError) as info:
        y.get()
    assert info.value.index == 5 and "loop_prep" in info.value.filename


def test_checks_off_runs_cupys_kernel(monkeypatch):
    from tests.support.settings import safekern_setting

    x = cp.arange(10, dtype=cp.float32)
    shift = skcp.ElementwiseKernel("raw T x", "T y", "y = x[i + 1]", "shift")
    with safekern_setting(monkeypatch, "SAFEKERN_CHECKS", "0"):
        shift(x, size=10)                      # CuPy's kernel: unchecked, nothing recorded
        cp.cuda.Device().synchronize()
    safekern.sync()


# -- ReductionKernel ---------------------------------------------------------------------------

WSUM = ("T x, raw T w", "T y", "x * w[_j % 4]", "a + b", "y = a", "0", "wsum")


def test_reduction_with_raw_input_gives_cupys_result():
    x = cp.arange(64, dtype=cp.float32).reshape(8, 8)
    w = cp.asarray([1, -1, 2, 0.5], dtype=cp.float32)
    mine = skcp.ReductionKernel(*WSUM)(x, w)
    plain = cp.ReductionKernel(*WSUM)(x, w)
    cp.testing.assert_allclose(mine, plain)
    ss = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "sumsq_sqrt")
    for kw in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}):
        cp.testing.assert_allclose(skcp.ReductionKernel(*ss)(x, **kw),
                                   cp.ReductionKernel(*ss)(x, **kw))
    safekern.sync()


def test_reduction_raw_past_the_end_is_located():
    x = cp.ones(64, dtype=cp.float32)
    y = skcp.ReductionKernel(*WSUM)(x, cp.ones(3, dtype=cp.float32))     # w[3] of 3
    with pytest.raises(safekern.BoundsError) as info:
        y.get()
    err = info.value
    assert (err.kernel, err.array, err.index, err.size) == ("wsum", "w", 3, 3)
    assert "map_expr of ReductionKernel 'wsum'" in err.filename
    assert "test_elementwise_gpu.py" in err.filename
    # the next launch runs normally
    cp.testing.assert_allclose(skcp.ReductionKernel(*WSUM)(x, cp.ones(4, dtype=cp.float32)),
                               64.0)
    safekern.sync()


def test_reduction_post_map_raw_is_checked():
    k = skcp.ReductionKernel("T x, raw T s", "T y", "x", "a + b", "y = a / s[1]", "0", "scaled")
    x = cp.arange(10, dtype=cp.float32)
    cp.testing.assert_allclose(k(x, cp.asarray([1, 5], dtype=cp.float32)), 9.0)
    safekern.sync()
    y = k(x, cp.asarray([5], dtype=cp.float32))
    with pytest.raises(safekern.BoundsError) as info:
        y.get()
    assert info.value.array == "s" and "post_map_expr" in info.value.filename
