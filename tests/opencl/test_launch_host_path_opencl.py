"""The host path of a checked OpenCL launch repeats nothing it can skip -- an argument passed
again is not set again (arguments.py), an object passed again at its index is not looked at
again, the overlap check skips the last disjoint objects, the launch predicates are memoised
on what they read (c_launch.py) -- and still launches exactly what it did: each launch below
changes one thing on one kernel object, whose memos are warm, and must see it."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from safekern.backends.opencl.arguments import same_entry, same_value
from tests.support.settings import safekern_setting, set_safekern
from tests.opencl.test_launch_predicates_opencl import TILE, VADD  # noqa: E402

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")

SCALE = """__kernel void scale(__global float *out, float alpha, int k) {
    int i = get_global_id(0);
    out[i] = (float)k / alpha;
}
"""
COPY = """__kernel void copy(__global const float *a, __global float *b) {
    int i = get_global_id(0);
    b[i] = a[i] + 1.0f;
}
"""


def f32(env, n, value=1.0):
    return cla.to_device(env.queue, np.full(n, value, np.float32))


@pytest.fixture(params=["plain", "variants"])
def mode(request, monkeypatch):
    """Both launch paths: the user's own kernel where every check is proven, and variants."""
    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES",
                          "1" if request.param == "plain" else "0"):
        yield request.param


def test_same_value_means_the_same_bytes(clenv):
    buf = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 64)
    assert same_value(np.int32(5), np.int32(5)) and same_value(7, 7)
    assert same_value(np.float32(2.5), np.float32(2.5)) and same_value(buf, buf)
    assert same_value(None, None) and same_value(b"ab", b"ab")
    assert not same_value(np.int32(5), np.int64(5))          # 4 bytes, 8 bytes
    assert not same_value(np.float32(0.0), np.float32(-0.0))  # equal, other bits
    assert not same_value(np.float32("nan"), np.float32("nan"))
    assert not same_value(True, 1)
    arr = np.zeros(1, np.int32)
    assert not same_value(arr, arr)          # its contents can change between launches
    assert same_entry((3, b"i", 4), (3, b"i", 4)) and not same_entry((3, b"i", 4), (3, b"l", 4))


def test_every_input_of_the_predicates_is_seen_on_a_warm_kernel(clenv, mode):
    prg = skcl.Program(clenv.ctx, VADD, filename=f"hp_{mode}.cl").build()
    knl, q = prg.add, clenv.queue
    a, b, out, short = f32(clenv, 64), f32(clenv, 64, 2.0), f32(clenv, 64, 0.0), f32(clenv, 40)
    n64, n80 = np.int32(64), np.int32(80)
    for _ in range(3):
        knl(q, (64,), (16,), a.data, b.data, out.data, n64)
        safekern.sync()
    np.testing.assert_array_equal(out.get(), 3.0)
    # a buffer of another size at one index
    knl(q, (64,), (16,), a.data, b.data, short.data, n64)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.size) == ("out", 40)
    knl(q, (64,), (16,), a.data, b.data, out.data, n64)
    safekern.sync()
    # a scalar past the buffers (then an equal one of a new object: nothing changes)
    knl(q, (128,), (16,), a.data, b.data, out.data, n80)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.size == 64 and 64 <= info.value.index < 80
    knl(q, (128,), (16,), a.data, b.data, out.data, np.int32(64))
    safekern.sync()
    knl(q, (128,), (16,), a.data, b.data, out.data, np.int32(80))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()


def test_the_local_size_is_seen_on_a_warm_kernel(clenv, mode):
    prg = skcl.Program(clenv.ctx, TILE, filename=f"hp_tile_{mode}.cl").build()
    out, n = f32(clenv, 64, 0.0), np.int32(64)
    expect = np.tile(np.arange(15, -1, -1), 4)
    for local, fails in ((16,), False), ((32,), True), ((16,), False), ((32,), True):
        prg.tile(clenv.queue, (64,), local, out.data, n)
        if fails:
            with pytest.raises(safekern.BoundsError) as info:
                safekern.sync()
            assert info.value.array == "t"
        else:
            safekern.sync()
            np.testing.assert_array_equal(out.get(), expect)


def test_a_zero_of_the_other_sign_and_alternating_buffers(clenv, mode):
    prg = skcl.Program(clenv.ctx, SCALE + COPY, filename=f"hp_scale_{mode}.cl").build()
    out, k = f32(clenv, 16, 0.0), np.int32(1)
    prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(0.0), k)
    assert (out.get() == np.inf).all()
    prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(-0.0), k)
    assert (out.get() == -np.inf).all()          # -0.0 == 0.0, but it is another argument
    # hotspot's ping-pong: the two buffers swap places at every launch
    src, dst = f32(clenv, 16, 0.0), f32(clenv, 16, 0.0)
    for _ in range(5):
        prg.copy(clenv.queue, (16,), (16,), src.data, dst.data)
        src, dst = dst, src
    np.testing.assert_array_equal(src.get(), 5.0)
    safekern.sync()


def test_an_argument_changed_in_place_is_set_again(clenv, mode):
    prg = skcl.Program(clenv.ctx, SCALE, filename=f"hp_inplace_{mode}.cl").build()
    out, k = f32(clenv, 16, 0.0), np.array(5, np.int32)     # the bytes of a 0-d array
    prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(1.0), k)
    np.testing.assert_array_equal(out.get(), 5.0)
    k[...] = 9
    prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(1.0), k)
    np.testing.assert_array_equal(out.get(), 9.0)
    safekern.sync()


def test_a_wrong_argument_fails_at_every_launch_as_in_pyopencl(clenv, mode):
    plain = cl.Program(clenv.ctx, SCALE).build().scale
    prg = skcl.Program(clenv.ctx, SCALE, filename=f"hp_wrong_{mode}.cl").build()
    out = f32(clenv, 16, 0.0)
    prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(1.0), np.int32(3))
    wide = np.int64(3)            # equal to the last, 8 bytes for an int
    with pytest.raises(cl.LogicError):
        plain(clenv.queue, (16,), (16,), out.data, np.float32(1.0), wide)
    for _ in range(2):
        with pytest.raises(cl.LogicError):
            prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(1.0), wide)
    prg.scale(clenv.queue, (16,), (16,), out.data, np.float32(2.0), np.int32(3))
    np.testing.assert_array_equal(out.get(), 1.5)
    safekern.sync()


def test_the_overlap_check_sees_every_launch(clenv, monkeypatch):
    set_safekern(monkeypatch, RACES="error")
    prg = skcl.Program(clenv.ctx, COPY, filename="hp_overlap.cl").build()
    x, y = f32(clenv, 16, 0.0), f32(clenv, 16, 0.0)
    for _ in range(2):
        prg.copy(clenv.queue, (16,), (16,), x.data, y.data)     # disjoint (then remembered)
        with pytest.raises(safekern.RaceError):
            prg.copy(clenv.queue, (16,), (16,), x.data, x.data)
    np.testing.assert_array_equal(y.get(), 1.0)
    safekern.sync()


def test_a_forgotten_failure_source_is_looked_up_again(clenv, mode):
    from safekern import runtime

    prg = skcl.Program(clenv.ctx, VADD, filename=f"hp_source_{mode}.cl").build()
    a, out, short = f32(clenv, 64), f32(clenv, 64, 0.0), f32(clenv, 40)
    prg.add(clenv.queue, (64,), (16,), a.data, a.data, out.data, np.int32(64))
    safekern.sync()
    first = prg.add._fb_source
    assert runtime.release_sources("opencl", lambda source: source is first) == 1
    # the same queue: the registry's new source is bound, and the failure reported from it
    prg.add(clenv.queue, (64,), (16,), a.data, a.data, short.data, np.int32(64))
    with pytest.raises(safekern.BoundsError):
        safekern.sync()
    assert prg.add._fb_source is not first
    assert runtime.is_current("opencl", prg.add._fb_source.key, prg.add._fb_source)
