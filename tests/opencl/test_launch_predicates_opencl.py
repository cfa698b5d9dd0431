"""Launch predicates of OpenCL C kernels on a device (PoCL here): a launch whose predicates hold
runs the variant without those checks, one that breaks them keeps the checks and reports the
failure exactly as before -- buffer sizes, scalars, local and global sizes -- and a launch where
only some hold runs a partial variant (at most three)."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from safekern.backends import c_launch
from tests.support.settings import set_safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")


@pytest.fixture(autouse=True)
def _variants_not_plain(monkeypatch):
    """These tests are about the variants: launches that could run the user's own kernel
    (test_plain_launches_opencl.py) run their variant here."""
    from tests.support.settings import safekern_setting

    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        yield

VADD = """__kernel void add(__global const float *a, __global const float *b,
                  __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] + b[i];
}
"""

TILE = """__kernel void tile(__global float *out, int n) {
    __local float t[16];
    int lid = get_local_id(0);
    t[lid] = (float)lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    int i = get_global_id(0);
    if (i < n) out[i] = t[15 - lid];
}
"""


def build(env, src, name="lp.cl"):
    return skcl.Program(env.ctx, src, filename=name).build()


def f32(env, n, value=1.0):
    return cla.to_device(env.queue, np.full(n, value, np.float32))


def ran(knl):
    """What the launches so far ran: the variants made (sets of codes left out)."""
    variants = knl._launch_variants()
    return [] if not variants else [len(c) for c, k in variants._table._made.items() if k is not None]


def test_holding_launch_runs_the_full_variant(clenv):
    prg = build(clenv, VADD)
    assert {str(e.status) for e in prg.check_report()} == {"proven at launch"}
    a, b, out = f32(clenv, 64), f32(clenv, 64, 2.0), f32(clenv, 64, 0.0)
    prg.add(clenv.queue, (64,), (16,), a, b, out, np.int32(64))
    safekern.sync()
    np.testing.assert_array_equal(out.get(), 3.0)
    assert ran(prg.add) == [3]
    # n below the buffers and more work-items than elements: still every check proven
    prg.add(clenv.queue, (128,), (16,), a, b, out, np.int32(50))
    safekern.sync()
    assert ran(prg.add) == [3]


def test_breaking_launch_keeps_the_checks_and_reports(clenv):
    prg = build(clenv, VADD)
    a, b = f32(clenv, 64), f32(clenv, 64)
    small = f32(clenv, 40, 0.0)
    prg.add(clenv.queue, (64,), (16,), a, b, small, np.int32(64))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value          # (work-items 40..63 fail: which records first is the device's)
    assert (e.kernel, e.lineno, e.array, e.size) == ("add", 4, "out", 40)
    assert 40 <= e.index < 64
    assert ran(prg.add) == [2]          # a[i] and b[i] held: a partial variant


def test_a_scalar_that_breaks_the_predicate(clenv):
    prg = build(clenv, VADD)
    a, b, out = f32(clenv, 32), f32(clenv, 32), f32(clenv, 32)
    prg.add(clenv.queue, (64,), (16,), a, b, out, np.int32(64))     # n past every buffer
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.size == 32 and 32 <= info.value.index < 64
    assert ran(prg.add) == []           # nothing held: the checked kernel ran


def test_the_local_size_decides_a_local_array(clenv):
    prg = build(clenv, TILE, "tile.cl")
    out = f32(clenv, 64, 0.0)
    prg.tile(clenv.queue, (64,), (16,), out, np.int32(64))
    safekern.sync()
    np.testing.assert_array_equal(out.get(), np.tile(np.arange(15, -1, -1), 4))
    assert ran(prg.tile) == [3]
    # groups of 32 overrun t[16]: that check stays and fires
    prg.tile(clenv.queue, (64,), (32,), out, np.int32(64))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.lineno) == ("t", 4)
    assert 16 <= info.value.index < 32
    # the driver picks the local size: no predicate over it holds (the checked kernel runs,
    # no variant is made)
    prg.tile(clenv.queue, (16,), None, out, np.int32(16))
    safekern.sync()
    assert sorted(ran(prg.tile)) == [1, 3]       # (the partial variant of the launch above)


def test_at_most_three_partial_variants(clenv):
    src = """__kernel void four(__global float *a, __global float *b, __global float *c,
                   __global float *d, int n) {
    int i = get_global_id(0);
    if (i < n) { a[i] = 1.0f; b[i] = 2.0f; c[i] = 3.0f; d[i] = 4.0f; }
}
"""
    prg = build(clenv, src, "four.cl")
    big = [f32(clenv, 64) for _ in range(4)]
    for k in range(4):                  # each launch breaks one predicate: 4 partial sets
        bufs = list(big)
        bufs[k] = f32(clenv, 8)
        prg.four(clenv.queue, (64,), (16,), *bufs, np.int32(64))
        with pytest.raises(safekern.BoundsError) as info:
            safekern.sync()
        assert info.value.array == "abcd"[k]
    assert sorted(ran(prg.four)) == [3, 3, 3]


def test_a_global_offset_runs_the_checked_kernel(clenv):
    prg = build(clenv, VADD)
    a, b, out = f32(clenv, 64), f32(clenv, 64), f32(clenv, 64)
    prg.add(clenv.queue, (48,), (16,), a, b, out, np.int32(64), global_offset=(16,))
    safekern.sync()
    assert ran(prg.add) == []


def test_scalar_dtypes_and_python_ints(clenv):
    prg = build(clenv, VADD)
    knl = prg.add
    knl.set_scalar_arg_dtypes([None, None, None, np.int32])
    a, b, out = f32(clenv, 64), f32(clenv, 64), f32(clenv, 64)
    knl(clenv.queue, (64,), (16,), a.data, b.data, out.data, 64)
    safekern.sync()
    assert ran(knl) == [3]


def test_switched_off(clenv, monkeypatch):
    set_safekern(monkeypatch, LAUNCH_PREDICATES="0")
    try:
        prg = build(clenv, VADD, "off.cl")
        assert {str(e.status) for e in prg.check_report()} == {"checked"}
        a, b, out = f32(clenv, 64), f32(clenv, 64), f32(clenv, 64)
        prg.add(clenv.queue, (64,), (16,), a, b, out, np.int32(64))
        safekern.sync()
        assert prg.add._launch_variants() is None
    finally:
        set_safekern(monkeypatch, LAUNCH_PREDICATES=None)


def test_variants_are_cached_by_the_codes_they_leave_out(clenv, monkeypatch):
    from safekern.backends.opencl import build as backend

    fields = []
    real = backend._cache_fields

    def recording(*args):
        out = real(*args)
        fields.append(out)
        return out

    monkeypatch.setattr(backend, "_cache_fields", recording)
    prg = build(clenv, VADD, "cache.cl")
    a, b = f32(clenv, 64), f32(clenv, 64)
    prg.add(clenv.queue, (64,), (16,), a, b, f32(clenv, 64), np.int32(64))
    prg.add(clenv.queue, (64,), (16,), a, b, f32(clenv, 8), np.int32(64))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()
    subsets = [f.get("launch_subset") for f in fields]
    assert subsets[0] is None and len(subsets) == 3
    assert len(subsets[1]) == 3 and len(subsets[2]) == 2


def test_fuzzed_launches_behave_the_same(clenv):
    """A few of the fuzzer's kernels (tools/fuzz_elimination.py --opencl-launch), one group
    per launch (PoCL's threads may run several in any order)."""
    from tests.support import fuzz_launch_opencl

    if clenv.kind != "pocl":
        pytest.skip("a GPU runs a group's work-items at once: which fails first is its choice")
    differing = {}
    for seed in range(8):
        diffs = fuzz_launch_opencl.differences(clenv, fuzz_launch_opencl.generate(seed),
                                               one_group=True)
        if diffs:
            differing[seed] = diffs
    assert not differing, differing


def test_geometry_helpers_reject_what_variants_cannot_assume():
    with pytest.raises(ValueError):
        c_launch.opencl_geometry((64,), (16,), (1,))
