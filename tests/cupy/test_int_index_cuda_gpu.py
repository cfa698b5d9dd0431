"""CUDA C's `int` index check on a GPU (test_int_index_cuda.py has the rewrite): the prelude's
`__sk_ix32` is the same test as the 64-bit `__sk_ix` for every extent (unknown ones, -1,
included) over the boundary values; an `int` index out of bounds, negative included, is
reported as itself through a checked kernel, and so is a struct field's; an index whose int
arithmetic overflows never reaches an address its test did not see (a local or shared
array's too: its index is an opaque value there, `__sk_opq`).

    python -m pytest tests/cupy/test_int_index_cuda_gpu.py -m gpu -v
"""
import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from safekern.frontend.c import prelude  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(180, method="thread")]

BIG = 2 ** 31
EXTENTS = [-1, 0, 1, 2, 5, BIG - 1, BIG, BIG + 1, 2 ** 32, 2 ** 32 + 7, 2 ** 62]
INDEXES = [-BIG, -BIG + 1, -5, -1, 0, 1, 4, 5, 6, BIG - 2, BIG - 1]

# Each thread tests one (index, extent) pair with one of the two checks; a failing check
# records and exits the thread, so `out` keeps the 1 written before it (2: an index in bounds
# that came back changed).
PROBE = r"""
extern "C" __global__ void probe(const int* is, const long long* ns, int ni, int* out,
                                 long long* fb) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int pair = g / 2;
    if (pair >= ni * %d) return;
    int i = is[pair %% ni];
    long long n = ns[pair / ni];
    out[g] = 1;
    long long r = (g %% 2) ? (long long)__sk_ix32(i, n, 1ULL, 0, fb)
                          : (long long)__sk_ix(i, n, 1ULL, 0, fb);
    out[g] = r == i ? 0 : 2;
}
""" % len(EXTENTS)


def test_the_32_bit_test_is_the_64_bit_one():
    pairs = len(INDEXES) * len(EXTENTS)
    k = cp.RawKernel(prelude.cuda(False) + PROBE, "probe")
    out = cp.full(2 * pairs, 7, cp.int32)
    fb = cp.zeros(16, cp.int64)
    k(((2 * pairs + 127) // 128,), (128,),
      (cp.asarray(INDEXES, cp.int32), cp.asarray(EXTENTS, cp.int64), np.int32(len(INDEXES)),
       out, fb))
    got = out.get().reshape(pairs, 2)
    want = [int(n >= 0 and not 0 <= i < n) for n in EXTENTS for i in INDEXES]
    assert got[:, 0].tolist() == want            # __sk_ix
    assert got[:, 1].tolist() == want            # __sk_ix32


SHIFT = r"""
extern "C" __global__ void shift(float* out, const float* src, int d) {
    int i = threadIdx.x;
    out[i] = src[i + d];
}
"""


@pytest.mark.parametrize("d, index, thread", [(-3, -3, 0), (5, 16, 11)])
def test_an_int_index_out_of_bounds_is_reported_as_itself(d, index, thread):
    k = skcp.RawKernel(SHIFT, "shift")
    out, src = cp.zeros(12, cp.float32), cp.zeros(16, cp.float32)
    k((1,), (12,), (out, src, np.int32(d)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.index, err.size, err.array, err.thread[0]) == (index, 16, "src", thread), \
        str(err)


def test_in_bounds_int_indexes_compute_what_the_plain_kernel_does():
    k = skcp.RawKernel(SHIFT, "shift")
    src = cp.arange(16, dtype=cp.float32)
    out = cp.zeros(12, cp.float32)
    k((1,), (12,), (out, src, np.int32(4)))
    assert out.get().tolist() == list(range(4, 16))


OVERFLOW = r"""
extern "C" __global__ void overflow(int* out, int n) {
    int i = n * 16;
    out[i] = 5;
}
"""


def test_an_int_index_that_overflows_never_reaches_an_untested_address():
    """`n * 16` with n = -2**31 overflows (undefined in C): the compiler may make the address
    from the operands in 64 bits (-2**35) or wrap (0). The check tests the value the address
    is made of (prelude._index_check), so either it is reported as -2**35 or the kernel stores
    at 0 -- never an illegal address (before: the test saw 0 and on PoCL the store went to
    -2**35, a segmentation fault). Ran on an H100 with the sign-extended return (call 3 of
    2026-11-28); the zero-extended one after it (and test_the_32_bit_test_is_the_64_bit_one's
    unknown extent, -1, whose negative index comes back as itself) was not run on a GPU that
    session."""
    k = skcp.RawKernel(OVERFLOW, "overflow")
    out = cp.zeros(64, cp.int32)
    k((1,), (32,), (out, np.int32(-2 ** 31)))
    try:
        safekern.sync()
    except safekern.BoundsError as err:
        assert (err.index, err.size, err.array) == (-2 ** 35, 64, "out"), str(err)
    else:
        assert out.get()[0] == 5
    cp.cuda.runtime.deviceSynchronize()          # the context is alive
    assert (cp.arange(4) + 1).get().tolist() == [1, 2, 3, 4]


def test_a_constant_extents_index_that_overflows_never_reaches_an_untested_address():
    """A local and a shared array indexed by an int arithmetic that overflows: the test of a
    constant extent may be narrowed to 32 bits while the address is widened from the
    operands (the OpenCL fuzzer's seed 255312649 crashed a checked kernel on PoCL so); the
    index goes through `__sk_opq` (access_check.Check.opaque), so either the failure
    is reported or the wrapped index is used as tested -- never an illegal address."""
    from tests.cupy.test_int_index_cuda import CONSTANT_EXTENTS

    k = skcp.RawKernel(CONSTANT_EXTENTS, "k")
    out = cp.zeros(16, cp.int32)
    k((1,), (16,), (out, np.uint32(2 ** 31)))
    try:
        safekern.sync()
    except safekern.BoundsError as err:
        assert err.array in ("priv", "tile") and err.size in (8, 16), str(err)
        assert not 0 <= err.index < err.size, str(err)
    else:
        assert out.get().tolist() == [30 + t % 8 for t in range(16)]
    cp.cuda.runtime.deviceSynchronize()          # the context is alive
    assert (cp.arange(4) + 1).get().tolist() == [1, 2, 3, 4]


def test_a_pointer_into_an_array_that_overflows_never_reaches_an_untested_address():
    """`p[i]`, `*(p + i)` and `*q` into a local and a shared array, the index or the pointer
    made by an int arithmetic that overflows: reported, or used wrapped as tested -- never an
    illegal address (`__sk_opq`, `__sk_opqp`)."""
    from tests.cupy.test_int_index_cuda import POINTERS

    k = skcp.RawKernel(POINTERS, "k")
    out = cp.zeros(16, cp.int32)
    k((1,), (16,), (out, np.uint32(2 ** 31)))
    try:
        safekern.sync()
    except safekern.BoundsError as err:
        assert "priv" in err.array or "tile" in err.array, str(err)     # ("p (in priv)")
        assert not 0 <= err.index < err.size, str(err)
    else:
        assert out.get().tolist() == [40 + t % 8 for t in range(16)]
    cp.cuda.runtime.deviceSynchronize()          # the context is alive
    assert (cp.arange(4) + 1).get().tolist() == [1, 2, 3, 4]
