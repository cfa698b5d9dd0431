"""Helper functions with barriers and checked accesses (silx's bitonic sort, gputools' DCT,
PyOpenCL's n-body example were refused until 29 Nov 2026): the helper keeps the work-group
together as a kernel does, on its caller's counts (exits.py). Right results where nothing
fails; where a work-item fails -- in the helper before, between or after its barriers, or in
the kernel before the call -- the failure is reported and the group does not hang (a hang
fails the test by its timeout)."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from tests.support.unchecked_functions import build_with_unchecked_warning

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(180, method="thread")

# A work-group sum in a helper (the pattern of many reductions): a load, a barrier, a loop of
# halving steps each ending in a barrier, a store by the first work-item.
BLOCK_SUM = """void block_sum(__global const float *a, __local float *tmp, __global float *out,
               int shift, int extra) {
    int l = get_local_id(0), g = get_global_id(0);
    tmp[l] = a[g + shift];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s + extra];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0) + extra * 1000] = tmp[0];
}

__kernel void sums(__global const float *a, __global float *out, int shift, int extra) {
    __local float tmp[64];
    block_sum(a, tmp, out, shift, extra);
}
"""


def _buffers(clenv, n=256, groups=4):
    q = clenv.queue
    a = cla.to_device(q, np.arange(n, dtype=np.float32))
    out = cla.zeros(q, groups, np.float32)
    return q, a, out


def test_a_helper_with_barriers_sums_right_and_reports_each_failure(clenv):
    prg = skcl.Program(clenv.ctx, BLOCK_SUM, filename="block_sum.cl").build()
    q, a, out = _buffers(clenv)
    prg.sums(q, (256,), (64,), a.data, out.data, np.int32(0), np.int32(0))
    safekern.sync()
    np.testing.assert_array_equal(out.get(), np.arange(256.0).reshape(4, 64).sum(1))

    # before the helper's first barrier: the last work-item reads one past the end
    prg.sums(q, (256,), (64,), a.data, out.data, np.int32(1), np.int32(0))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (4, "a", 256, 256)
    assert (e.thread, e.block) == ((63, 0, 0), (3, 0, 0))

    # between barriers, in the helper's loop
    prg.sums(q, (256,), (64,), a.data, out.data, np.int32(0), np.int32(32))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.size) == (8, "tmp", 64) and e.index >= 64

    # after the helper's last barrier (the failing work-item returns to the kernel, which
    # publishes the flag at its own barrier after the call)
    prg.sums(q, (256,), (64,), a.data, out.data, np.int32(0), np.int32(0))
    safekern.sync()
    prg.sums(q, (64,), (64,), a.data, out.data, np.int32(0), np.int32(-1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (12, "out", -1000, 4)


RETURNING = """float group_max(__local float *tmp, float v, int extra) {
    int l = get_local_id(0);
    tmp[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] = fmax(tmp[l], tmp[l + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float m = tmp[extra];
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}

float scaled_max(__local float *tmp, float v, int extra) {
    return 2.0f * group_max(tmp, v, extra);
}

__kernel void normalise(__global const float *in, __global float *out, int off, int extra) {
    __local float tmp[32];
    int g = get_global_id(0);
    float v = in[g + off];
    float m = scaled_max(tmp, v, extra);
    out[g] = v / m;
}
"""


def test_a_helper_returning_a_value_through_two_calls(clenv):
    prg = skcl.Program(clenv.ctx, RETURNING, filename="normalise.cl").build()
    q = clenv.queue
    x = np.random.default_rng(3).uniform(1, 2, 128).astype(np.float32)
    inp, out = cla.to_device(q, x), cla.zeros(q, 128, np.float32)
    prg.normalise(q, (128,), (32,), inp.data, out.data, np.int32(0), np.int32(0))
    safekern.sync()
    want = x / (2 * x.reshape(4, 32).max(1).repeat(32))
    np.testing.assert_allclose(out.get(), want, rtol=1e-6)

    # in the kernel, before the call: the failing work-item still enters the helpers with its
    # group and the group leaves together
    prg.normalise(q, (128,), (32,), inp.data, out.data, np.int32(1), np.int32(0))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (22, "in", 128, 128)

    # in the inner helper, after its loop of barriers, before its last one
    prg.normalise(q, (128,), (32,), inp.data, out.data, np.int32(0), np.int32(40))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (10, "tmp", 40, 32)


# silx's backprojection (backproj.cl) reloads a tile of tables every 256 projections; the store
# `read += 256` sits between a checked load and a barrier: a failing work-item skips it on its
# way straight to that barrier, where its group leaves, so the if's condition stays uniform.
TILED_TABLE = """__kernel void tabled(__global const float *table, __global float *out,
                     int n, int extra) {
    __local float tile[16];
    int l = get_local_id(0);
    float acc = 0.0f;
    int read = 0;
    for (int k = 0; k < n; k++) {
        if (k >= read) {
            barrier(CLK_LOCAL_MEM_FENCE);
            if (read + l < n)
                tile[l] = table[read + l + extra];
            read = read + 16;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        acc += tile[16 - read + k];
    }
    out[get_global_id(0)] = acc;
}
"""


def test_a_store_skipped_on_the_way_to_a_barrier_keeps_the_condition_uniform(clenv):
    prg = skcl.Program(clenv.ctx, TILED_TABLE, filename="tabled.cl").build()
    q = clenv.queue
    table = np.arange(40, dtype=np.float32)
    tb, out = cla.to_device(q, table), cla.zeros(q, 32, np.float32)
    prg.tabled(q, (32,), (16,), tb.data, out.data, np.int32(40), np.int32(0))
    safekern.sync()
    np.testing.assert_array_equal(out.get(), np.full(32, table.sum()))
    prg.tabled(q, (32,), (16,), tb.data, out.data, np.int32(40), np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.index, e.size) == (11, "table", 40, 40)


def test_a_store_skipped_on_the_way_to_a_loop_still_leaves_the_kernel_unchecked(clenv):
    # Here the failing work-item skips `read = ...` and then compares `k >= read` again on its
    # way round the loop to the next barrier: that condition is not uniform for it.
    src = TILED_TABLE.replace("""            read = read + 16;
            barrier(CLK_LOCAL_MEM_FENCE);
        }""", """            barrier(CLK_LOCAL_MEM_FENCE);
        }
        acc += table[k + extra];
        read = read + (k % 16 == 15 ? 16 : 0);""")
    _, why = build_with_unchecked_warning(clenv.ctx, src, "tabled2.cl", "tabled")
    assert "'read' is assigned where a work-item that fails a check may skip it" in why
