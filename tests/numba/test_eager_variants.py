"""A kernel decorated with signatures compiles at decoration, as numba's does -- one form: the
launch variant of all its predicates (what its launches run where they hold), or numba's own
kernel when that variant holds no check; not the checked kernel as well, a second compile of
nearly the same code (issue 26 item 3: stumpy's kernel compiled both, 4x plain numba's first
launch on the H100). The checked kernel compiles when a launch or a question needs it. On the
simulator (whose jit compiles nothing: what is asked for is what counts here); the compiles
themselves on real numba: test_eager_variant_compiles.py."""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


@safekern.jit("void(float64[:], int64[:], float64[:])")
def gather(a, idx, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]]          # idx[i]: proven at launch; a[idx[i]]: checked


@safekern.jit("void(float64[:], float64[:])")
def copy(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + 1.0         # proven at launch (a no shorter than out): no check left


def built(form) -> bool:
    return form.build.numba is not None


def test_decoration_compiles_the_variant_not_the_checked_kernel():
    variants = gather.dispatch.variants
    assert variants and [built(v) for v in variants.kernels()] == [True]
    assert not built(gather)
    assert gather.dispatch.plain_made is None


def test_launches_where_the_predicates_hold_compile_nothing_more():
    a = cuda.to_device(np.arange(10.0))
    idx = cuda.to_device(np.arange(16) % 10)
    out = cuda.to_device(np.zeros(16))
    gather[2, 8](a, idx, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(16) % 10)
    assert not built(gather)
    assert len(gather.dispatch.variants.kernels()) == 1


def test_a_launch_where_a_predicate_fails_compiles_the_checked_kernel_then():
    a = cuda.to_device(np.arange(10.0))
    out = cuda.to_device(np.zeros(16))
    gather[2, 8](a, cuda.to_device(np.arange(12) % 10), out)     # idx shorter than out
    assert built(gather)
    assert_bounds_error(array="idx", index=12, size=12, kernel="gather")


def test_a_variant_without_checks_compiles_numbas_own_kernel_at_decoration():
    assert not built(copy)
    plain = copy.dispatch.plain_made
    assert plain is not None and built(plain)
    assert not [v for v in (copy.dispatch.variants or ()) and copy.dispatch.variants.kernels()
                if built(v)]
    a = cuda.to_device(np.arange(16.0))
    out = cuda.to_device(np.zeros(16))
    copy[2, 8](a, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(16.0) + 1.0)
    assert not built(copy)


def test_without_signatures_nothing_compiles_at_decoration():
    @safekern.jit
    def lazy(a, idx, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[idx[i]]

    assert not built(lazy) and lazy.dispatch.variants is None


def test_numbas_on_disk_cache_keeps_the_checked_kernel_compiled_at_decoration():
    """cache=True: numba's on-disk cache and its records (stats) are the checked kernel's, as
    before."""
    @safekern.jit("void(float64[:], int64[:], float64[:])", cache=True)
    def cached_gather(a, idx, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[idx[i]]

    assert built(cached_gather)
    assert not cached_gather.dispatch.variants or not cached_gather.dispatch.variants.kernels()
