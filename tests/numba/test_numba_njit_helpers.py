"""A user's `@numba.njit` helper called from a checked kernel -- numba-cuda compiles it for the
GPU as it would a device function -- is a call of its checked copy
(backends/numba/library_functions.py): its accesses are checked and a failure names its line and
the kernel's call. Until 29 Nov 2026 such helpers ran unchecked without a word. The helper itself
stays numba's: called on the host it runs on the CPU as before. Where safekern cannot rewrite
one, the kernel still builds, with a warning that says so and why. On the simulator without a
GPU, on the device with one (`pytest -m gpu`)."""
import warnings

import numba
import numpy as np
import pytest
from numba import cuda

import safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]


@numba.njit
def window_sum(a, i, width):
    s = 0.0
    for k in range(width):
        s += a[i + k]
    return s


@numba.njit(fastmath=True)
def clamp_get(a, i):
    return a[min(max(i, 0), a.shape[0] - 1)]


def moving_sum(a, out, width):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = window_sum(a, i, width)


def clamped(a, out, shift):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = clamp_get(a, i + shift)


def test_an_njit_helper_computes_right_checked():
    kernel = safekern.jit(moving_sum)
    a = np.arange(20.0)
    out = np.zeros(16)
    kernel[1, 16](a, out, 5)
    cuda.synchronize()
    np.testing.assert_array_equal(out, [a[i:i + 5].sum() for i in range(16)])
    # numba's own function is untouched on the host
    assert window_sum(a, 2, 3) == a[2:5].sum()


def test_an_out_of_bounds_read_inside_an_njit_helper_names_it_and_the_call():
    kernel = safekern.jit(moving_sum)
    a = np.arange(20.0)
    with pytest.raises(safekern.BoundsError) as info:
        kernel[1, 16](a, np.zeros(16), 6)      # (host arrays: copied back, a sync point)
        cuda.synchronize()
    e = info.value
    assert (e.kernel, e.array, e.index, e.size) == ("window_sum", "a", 20, 20)
    assert e.source_line.strip() == "s += a[i + k]" and e.filename == __file__
    assert e.called_from == ("moving_sum",)
    assert [(f.kernel, f.source_line.strip()) for f in e.call_chain] == \
        [("moving_sum", "out[i] = window_sum(a, i, width)")]


def test_an_njit_helper_with_options_and_a_guarded_index():
    kernel = safekern.jit(clamped)
    a = np.arange(8.0)
    out = np.zeros(8)
    kernel[1, 8](a, out, 3)
    cuda.synchronize()
    np.testing.assert_array_equal(out, np.minimum(np.arange(8) + 3, 7))
    from safekern.backends.numba import library_functions

    assert library_functions.checked_copy(clamp_get).options == {"fastmath": True}


def test_an_njit_helper_safekern_cannot_rewrite_builds_unchecked_with_a_warning(monkeypatch):
    import safekern.backends.numba.jit  # noqa: F401  (sets library_functions.make)
    from safekern.backends.numba import library_functions
    from safekern.errors import UnsupportedError

    @numba.njit
    def get(a, i):
        return a[i]

    def refuse(fn, options=None):
        raise UnsupportedError("a construct safekern does not rewrite", filename=__file__,
                               lineno=1)

    monkeypatch.setattr(library_functions, "make", refuse)

    def reads(a, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = get(a, i)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = safekern.jit(reads)
        try:
            kernel[1, 4](np.arange(4.0), np.zeros(4))
            cuda.synchronize()
        except TypeError:
            pass       # (the simulator cannot run numba's CPU function inside a kernel)
    texts = [str(w.message) for w in caught if issubclass(w.category, safekern.UncheckedWarning)]
    assert texts == ["safekern: 'get' is a numba.jit function safekern cannot check "
                     "(UnsupportedError: a construct safekern does not rewrite): accesses "
                     "inside it are not checked"]
    assert library_functions.refused(get).startswith("UnsupportedError")


def test_an_njit_helper_with_explicit_signatures_is_left_to_numba():
    # numba compiles such a function for the CPU only and refuses its call on the device
    # (numba-cuda's test_cpu_dispatcher_invalid): no checked copy is made of it
    from safekern.backends.numba import library_functions

    @numba.njit("(i4, i4)")
    def add(a, b):
        return a + b

    assert library_functions.checked_copy(add) is None
    assert library_functions.checked_copy(window_sum) is not None
