"""An `int` index is tested in 32 bits (opencl_edits.index_helper, the prelude's __sk_ix32):
the same test as the 64-bit __sk_ix for every extent and index, run here on the device itself
over the boundary values; and an int index out of bounds, negative included, is reported
with its own value through a checked kernel."""
from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
import safekern.opencl as skcl
from safekern.frontend.c import opencl as opencl_front
from safekern.frontend.c import prelude

pytestmark = pytest.mark.timeout(120, method="thread")

BIG = 2 ** 31
EXTENTS = [0, 1, 2, 5, BIG - 1, BIG, BIG + 1, 2 ** 32, 2 ** 32 + 7, 2 ** 62]
INDEXES = [-BIG, -BIG + 1, -5, -1, 0, 1, 4, 5, 6, BIG - 2, BIG - 1]

PROBE = """
__kernel void probe(__global const int *is, __global const long *ns, int ni,
                    __global int *f32, __global int *f64, __global long *fb) {
    int g = get_global_id(0);
    int i = is[g % ni];
    long n = ns[g / ni];
    int f = 0;
    int r = __sk_ix32(i, n, 1L, 0, fb, &f);
    f32[g] = f ? 1 : (r == i ? 0 : 2);
    f = 0;
    __sk_ix((long)i, n, 1L, 0, fb, &f);
    f64[g] = f;
}
"""


def test_the_32_bit_test_is_the_64_bit_one(clenv):
    import pyopencl as cl

    prg = cl.Program(clenv.ctx, prelude.opencl() + PROBE).build()
    q = clenv.queue
    mf = cl.mem_flags
    count = len(INDEXES) * len(EXTENTS)
    is_ = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                    hostbuf=np.array(INDEXES, np.int32))
    ns = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                   hostbuf=np.array(EXTENTS, np.int64))
    f32, f64 = (cl.Buffer(clenv.ctx, mf.WRITE_ONLY, 4 * count) for _ in range(2))
    fb = cl.Buffer(clenv.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(16, np.int64))
    prg.probe(q, (count,), None, is_, ns, np.int32(len(INDEXES)), f32, f64, fb)
    got32, got64 = np.empty(count, np.int32), np.empty(count, np.int32)
    cl.enqueue_copy(q, got32, f32)
    cl.enqueue_copy(q, got64, f64)
    want = [int(not 0 <= i < n) for n in EXTENTS for i in INDEXES]
    assert got64.tolist() == want
    assert got32.tolist() == want       # (2: an index in bounds that came back changed)


def test_an_int_index_goes_through_the_32_bit_check():
    text = opencl_front.rewrite("__kernel void k(__global float *a, int i, long j, uint u) {\n"
                                "    a[i] = a[j] + a[u];\n}\n", filename="k.cl").source
    body = text[text.rfind("#line 1"):]
    # (private scalars: each is tested before the statement, by its helper's own test)
    assert "if (__SK_UNLIKELY((uint)((int)(i)) >= (uint)(__sk_n_a < 2147483648L ? " in body
    assert "if (__SK_UNLIKELY((ulong)((long)(j)) >= (ulong)(__sk_n_a))) {" in body
    assert "if (__SK_UNLIKELY((ulong)((long)(u)) >= (ulong)(__sk_n_a))) {" in body
    text = opencl_front.rewrite("__kernel void k(__global float *a, int i, long j, uint u) {\n"
                                "    a[i + 1] = a[j + 1] + a[u + 1];\n}\n", filename="k.cl").source
    body = text[text.rfind("#line 1"):]
    assert "a[__sk_ix32((int)(i + 1)," in body
    assert "a[__sk_ix((long)(j + 1)," in body and "a[__sk_ix((long)(u + 1)," in body


SOURCE = """
__kernel void shift(__global float *out, __global const float *src, int d) {
    int i = get_global_id(0);
    out[i] = src[i + d];
}
"""


@pytest.mark.parametrize("d, index, thread", [(-3, -3, 0), (5, 16, 11)])
def test_an_int_index_out_of_bounds_is_reported_as_itself(clenv, d, index, thread):
    import pyopencl.array as cla

    prg = skcl.Program(clenv.ctx, SOURCE).build()
    out = cla.zeros(clenv.queue, 12, np.float32)
    src = cla.zeros(clenv.queue, 16, np.float32)
    prg.shift(clenv.queue, (12,), (12,), out, src, np.int32(d))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.index, err.size, err.array, err.thread[0]) == (index, 16, "src", thread), \
        str(err)
