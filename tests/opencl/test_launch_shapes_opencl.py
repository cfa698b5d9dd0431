"""The launch shapes of the C benchmark kernels on a device (PoCL here): a scan with a doubling
loop and a guarded difference (`if (tid >= d) sm[tid - d]`), a halving reduction and a halo
stencil run their variant without checks where the launch proves them, and a launch that
breaks the proof -- a group larger than the local tile, a buffer one element short -- keeps the
checks and reports the out-of-bounds access (frontend/c/launch_loops.py, launch_relations.py)."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")

SCAN = """__kernel void scan(__global const int *x, __global int *out) {
    __local int sm[64];
    int tid = get_local_id(0);
    sm[tid] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < get_local_size(0); d *= 2) {
        int v = 0;
        if (tid >= d) v = sm[tid - d];
        barrier(CLK_LOCAL_MEM_FENCE);
        sm[tid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = sm[tid];
}
"""

HALO = """__kernel void halo(__global const float *src, __global float *dst, int rows,
                   int cols, int border) {
    int y = get_group_id(1) * 14 + get_local_id(1) - border;
    int x = get_group_id(0) * 14 + get_local_id(0) - border;
    int index = cols * y + x;
    if (y >= 0 && y <= rows - 1 && x >= 0 && x <= cols - 1)
        dst[index] = src[index] + 1.0f;
}
"""


def variant_codes(knl):
    """How many checks each variant made so far leaves out."""
    variants = knl._launch_variants()
    return [] if not variants else [len(c) for c, k in variants._table._made.items()
                                    if k is not None]


def test_scan_runs_unchecked_and_a_large_group_is_reported(clenv, monkeypatch):
    from tests.support.settings import safekern_setting

    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        prg = skcl.Program(clenv.ctx, SCAN, filename="scan.cl").build()
        x = np.arange(128, dtype=np.int32) % 5
        dx = cla.to_device(clenv.queue, x)
        out = cla.zeros(clenv.queue, 128, np.int32)
        prg.scan(clenv.queue, (128,), (64,), dx.data, out.data)
        safekern.sync()
        want = np.concatenate([np.cumsum(x[:64]), np.cumsum(x[64:])])
        np.testing.assert_array_equal(out.get(), want)
        report = prg.check_report()
        assert {str(e.status) for e in report} == {"proven at launch"}
        assert variant_codes(prg.scan) == [len(report)]        # every check left out
        # groups of 128 overrun sm[64]: the checks stay and the first overrun is reported
        prg.scan(clenv.queue, (128,), (128,), dx.data, out.data)
        with pytest.raises(safekern.BoundsError) as info:
            safekern.sync()
        assert info.value.array == "sm" and info.value.size == 64
        assert info.value.index >= 64


def test_halo_proven_with_its_border_and_a_short_buffer_reported(clenv):
    prg = skcl.Program(clenv.ctx, HALO, filename="halo.cl").build()
    rows = cols = 40
    src = cla.to_device(clenv.queue, np.arange(rows * cols, dtype=np.float32))
    dst = cla.zeros(clenv.queue, rows * cols, np.float32)
    args = (np.int32(rows), np.int32(cols), np.int32(1))
    prg.halo(clenv.queue, (48, 48), (16, 16), src.data, dst.data, *args)
    safekern.sync()
    got = dst.get().reshape(rows, cols)
    # blocks of 16 step by 14 from -1: three blocks cover rows and columns 0..40
    np.testing.assert_array_equal(got, np.arange(rows * cols).reshape(rows, cols) + 1.0)
    short = cla.zeros(clenv.queue, rows * cols - 1, np.float32)
    prg.halo(clenv.queue, (48, 48), (16, 16), src.data, short.data, *args)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.index, info.value.size) == (
        "dst", rows * cols - 1, rows * cols - 1)
