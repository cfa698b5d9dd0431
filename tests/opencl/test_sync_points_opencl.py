"""A failure reaches a PyOpenCL user at PyOpenCL's own sync points: CommandQueue.finish(), a
blocking enqueue_copy into host memory, pyopencl.array.Array.get(), Event.wait() and
wait_for_events() raise it (and reset it, as safekern.sync() does); asynchronous copies raise at
the call that completes them; calls that do not wait raise nothing; the hooks change no result.
PoCL in CI (marker `opencl`), NVIDIA's OpenCL under `pytest -m gpu`.
"""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import threading

import numpy as np
import pytest

import safekern
from safekern import runtime, sync_points

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")
from safekern.backends.opencl import sync as opencl_sync  # noqa: E402
from tests.support.checks import check_bounds_error
from tests.support.settings import set_safekern

pytestmark = pytest.mark.timeout(120, method="thread")

N = 64
SHIFT = """__kernel void shift(__global const float *a, __global float *out, int off) {
    int i = get_global_id(0);
    out[i] = a[i + off];
}"""


@pytest.fixture
def env(clenv, no_pending_failure):
    opencl_sync.install()           # a test may have taken the hooks out
    clenv.prg = skcl.Program(clenv.ctx, SHIFT, filename="shift.cl").build()
    clenv.a = cla.to_device(clenv.queue, np.arange(N, dtype=np.float32))
    clenv.out = cla.zeros(clenv.queue, N, np.float32)
    return clenv


def launch(env, off=1, queue=None):
    """off=1: work-item 63 (group 3, local 15) reads a[64] of 64."""
    return env.prg.shift(queue or env.queue, (N,), (16,), env.a, env.out, np.int32(off))


def assert_shift(err):
    check_bounds_error(err, kernel="shift", filename="shift.cl", lineno=3, array="a", axis=0,
                       index=N, size=N, thread=(15, 0, 0), block=(3, 0, 0))


def _copy_to_host(env):
    host = np.zeros(N, np.float32)
    env.host = host
    return cl.enqueue_copy(env.queue, host, env.out.data)


def _with_queue(env):
    with cl.CommandQueue(env.ctx, env.device) as q:
        launch(env, queue=q)


SYNC_POINTS = {
    "CommandQueue.finish": lambda env: env.queue.finish(),
    "enqueue_copy to host": _copy_to_host,
    "enqueue_copy to a sub-range of host": lambda env: cl.enqueue_copy(
        env.queue, np.zeros(8, np.float32), env.out.data, src_offset=8),
    "Array.get": lambda env: env.out.get(),
    "Array.get(ary=)": lambda env: env.out.get(ary=np.zeros(N, np.float32)),
    "Array.get of a view": lambda env: env.out[8:16].get(),
    "Event.wait": lambda env: env.event.wait(),
    "wait_for_events": lambda env: cl.wait_for_events([env.event]),
    "Array.finish": lambda env: env.out.finish(),
}


@pytest.mark.parametrize("where", list(SYNC_POINTS))
def test_each_sync_point_raises_the_failure(env, where):
    env.event = launch(env)
    with pytest.raises(safekern.BoundsError) as info:
        SYNC_POINTS[where](env)
    assert_shift(info.value)
    # Raised once and reset; the next correct launch computes the right result.
    safekern.sync()
    launch(env, off=0)
    np.testing.assert_array_equal(env.out.get(), np.arange(N))


def test_with_queue_raises_at_its_end(env):
    with pytest.raises(safekern.BoundsError) as info:
        _with_queue(env)
    assert_shift(info.value)
    safekern.sync()


def test_the_copy_that_raised_was_done(env):
    # The data a raising call copied is there (and untrusted): everything but the failing
    # work-item's element is the kernel's result.
    launch(env)
    with pytest.raises(safekern.BoundsError):
        _copy_to_host(env)
    np.testing.assert_array_equal(env.host[:N - 1], np.arange(1, N))


def test_correct_kernels_raise_nowhere(env):
    q = env.queue
    evt = launch(env, off=0)
    assert evt.wait() is None
    launch(env, off=0)
    assert q.finish() is None
    host = np.zeros(N, np.float32)
    copy_event = cl.enqueue_copy(q, host, env.out.data)
    assert isinstance(copy_event, cl.NannyEvent)        # what PyOpenCL returns, unwrapped
    np.testing.assert_array_equal(host, np.arange(N))
    ary = np.zeros(N, np.float32)
    assert env.out.get(ary=ary) is ary
    np.testing.assert_array_equal(env.out.get(), np.arange(N))
    cl.wait_for_events([launch(env, off=0)])
    safekern.sync()


def test_calls_that_do_not_wait_raise_nothing(env):
    q = env.queue
    launch(env)
    other = cl.Buffer(env.ctx, cl.mem_flags.READ_WRITE, N * 4)
    cl.enqueue_copy(q, other, env.out.data)                        # device to device
    cl.enqueue_copy(q, other, np.zeros(N, np.float32))             # host to device
    host = np.zeros(N, np.float32)
    evt = cl.enqueue_copy(q, host, env.out.data, is_blocking=False)
    _, evt2 = env.out.get_async()
    # The call that completes the copies raises.
    with pytest.raises(safekern.BoundsError) as info:
        evt.wait()
    assert_shift(info.value)
    evt2.wait()
    safekern.sync()


def test_a_sync_point_of_another_context_raises_nothing(env):
    ctx2 = cl.Context([env.device])
    q2 = cl.CommandQueue(ctx2)
    launch(env)
    q2.finish()
    cl.enqueue_copy(q2, np.zeros(4, np.float32), cl.Buffer(ctx2, cl.mem_flags.READ_ONLY, 16))
    with pytest.raises(safekern.BoundsError) as info:
        env.queue.finish()
    assert_shift(info.value)


def test_sync_points_off_leaves_only_sync(env, monkeypatch):
    set_safekern(monkeypatch, SYNC_POINTS="0")
    launch(env)
    env.queue.finish()
    env.out.get()
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert_shift(info.value)
    # Off from the start: a checked build installs nothing.
    sync_points.uninstall("opencl")
    skcl.Program(env.ctx, SHIFT, filename="shift.cl").build()
    assert "opencl" not in sync_points.installed()
    assert not hasattr(cl.enqueue_copy, "__safekern_sync_point__")


def test_nothing_pending_costs_one_test(env, monkeypatch):
    # With no checked launch since the last check the hooks call the original and test one
    # list: no check runs. (Checked launches: with plain launches on, these in-bounds ones
    # would run the user's kernel, which leaves nothing pending.)
    from tests.support.settings import safekern_setting

    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        launch(env, off=0)
        safekern.sync()
        assert not runtime.pending_sources()
        called = []
        monkeypatch.setattr(runtime, "sync_point", called.append)
        env.queue.finish()
        env.out.get()
        assert called == []
        launch(env, off=0)
        env.queue.finish()
        assert called == [env.queue]              # and with a launch pending, the check runs


def test_hooks_are_idempotent_and_reversible(env):
    hooked = cl.enqueue_copy
    original = hooked.__safekern_sync_point__
    finish = cl.CommandQueue.__dict__["finish"]
    get = cla.Array.__dict__["get"]
    opencl_sync.install()
    sync_points.install("opencl", opencl_sync.hooks())
    assert cl.enqueue_copy is hooked                    # not wrapped twice
    assert not hasattr(original, "__safekern_sync_point__")
    assert sorted(sync_points.installed()["opencl"]) == sorted(
        ["CommandQueue.finish", "pyopencl.enqueue_copy", "Array.get", "Event.wait",
         "pyopencl.wait_for_events"])

    sync_points.uninstall("opencl")
    assert cl.enqueue_copy is original
    assert cl.CommandQueue.__dict__["finish"] is finish.__safekern_sync_point__
    assert cla.Array.__dict__["get"] is get.__safekern_sync_point__
    assert not hasattr(cl.Event.__dict__["wait"], "__safekern_sync_point__")
    launch(env)
    env.queue.finish()
    env.out.get()                                       # PyOpenCL's own calls: nothing raised
    with pytest.raises(safekern.BoundsError):
        safekern.sync()

    # The next checked build puts them back.
    skcl.Program(env.ctx, SHIFT, filename="shift.cl").build()
    assert cl.enqueue_copy is not original
    launch(env)
    with pytest.raises(safekern.BoundsError):
        env.queue.finish()


def test_concurrent_installs_wrap_once(env):
    sync_points.uninstall("opencl")
    barrier = threading.Barrier(8)

    def install():
        barrier.wait()
        opencl_sync.install()

    threads = [threading.Thread(target=install) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not hasattr(cl.enqueue_copy.__safekern_sync_point__, "__safekern_sync_point__")
    assert len(sync_points.installed()["opencl"]) == 5


def test_concurrent_sync_points_raise_a_failure_once(env):
    launch(env)
    raised = []
    barrier = threading.Barrier(6)
    queues = [cl.CommandQueue(env.ctx, env.device) for _ in range(6)]

    def wait(q):
        barrier.wait()
        try:
            q.finish()
        except safekern.BoundsError as err:
            raised.append(err)

    threads = [threading.Thread(target=wait, args=(q,)) for q in queues]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(raised) == 1
    assert_shift(raised[0])


def test_threads_launching_correct_kernels_see_nothing(env):
    errors = []

    def work(k):
        try:
            q = cl.CommandQueue(env.ctx, env.device)
            a = cla.to_device(q, np.arange(N, dtype=np.float32) + k)
            out = cla.zeros(q, N, np.float32)
            for _ in range(5):
                env.prg.shift(q, (N,), (16,), a, out, np.int32(0))
                np.testing.assert_array_equal(out.get(), np.arange(N) + k)
                q.finish()
        except Exception as exc:      # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors


def test_an_arrays_event_bookkeeping_is_not_a_sync_point(env):
    """pyopencl.array.Array.add_event waits for its oldest events now and then: PyOpenCL's
    bookkeeping, not the user's sync point -- the failure stays pending (no wait for the whole
    queue to read it) and the user's own finish() raises it."""
    launch(env)                             # fails in work-item 63
    for _ in range(40):                     # past add_event's limit of twelve events
        env.a.add_event(cl.enqueue_marker(env.queue))
    assert runtime.pending_sources()
    with pytest.raises(safekern.BoundsError) as info:
        env.queue.finish()
    assert_shift(info.value)
