"""A failure reaches a numba-cuda user who only swapped the decorator: numba's own sync points
(synchronize, blocking copies back, stream and event waits, launches with host arrays) raise it,
asynchronous copies do not, the hooks change no result, and a failure is never lost to another
exception on the simulator. Runs on the simulator, and on the GPU under `pytest -m gpu`."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from numba import cuda

import safekern
from safekern import sync_points
from safekern.backends.numba import sync as numba_sync
from tests.numba import sync_kernels as K
from tests.support.settings import set_safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


@pytest.fixture(autouse=True)
def _clean_state(no_pending_failure):
    numba_sync.install()          # a test may have taken the hooks out
    yield


def launch_bad():
    """shift_write on 32 elements with 32 threads: thread 31 writes a[32]."""
    d = cuda.to_device(np.zeros(32))
    K.shift_write[1, 32](d)
    return d


def assert_shift_write(err, *, threads_per_block=32):
    assert isinstance(err, IndexError) and isinstance(err, safekern.KernelError)
    assert (err.array, err.axis, err.size) == ("a", 0, 32)
    if threads_per_block is None:
        # forall's block may be larger than the array: every thread past it fails, first wins.
        assert err.index >= 32
    else:
        assert err.index == 32
    assert err.kernel == "shift_write"
    assert err.filename == K.__file__ and err.lineno == K.expected_line("shift_write")
    if threads_per_block is None:          # forall picks its own geometry
        assert err.thread[1:] == (0, 0) and err.block[1:] == (0, 0)
    else:
        assert err.thread == (31, 0, 0) and err.block == (0, 0, 0)


def _stream_sync(d):
    s = cuda.stream()
    K.shift_write[1, 32, s](d)
    out = d.copy_to_host(stream=s)          # asynchronous: not a sync point
    assert isinstance(out, np.ndarray)
    s.synchronize()


def _event_sync(d):
    K.shift_write[1, 32](d)
    e = cuda.event()
    e.record()
    e.synchronize()


SYNC_POINTS = {
    "cuda.synchronize": lambda d: (K.shift_write[1, 32](d), cuda.synchronize()),
    "copy_to_host": lambda d: (K.shift_write[1, 32](d), d.copy_to_host()),
    "copy_to_host(out)": lambda d: (K.shift_write[1, 32](d), d.copy_to_host(np.empty(32))),
    "np.asarray": lambda d: (K.shift_write[1, 32](d), np.asarray(d)),
    "Stream.synchronize": _stream_sync,
    "Event.synchronize": _event_sync,
    "d[i]: one element read": lambda d: (K.shift_write[1, 32](d), d[3]),
    "d[i, j] of a 2-D view": lambda d: (K.shift_write[1, 32](d), d.reshape(4, 8)[1, 2]),
    "launch with host arrays": lambda d: K.shift_write[1, 32](np.zeros(32)),
    "forall with host arrays": lambda d: K.shift_write.forall(32)(np.zeros(32)),
}


@pytest.mark.parametrize("where", list(SYNC_POINTS))
def test_each_sync_point_raises_the_failure(where):
    d = cuda.to_device(np.zeros(32))
    with pytest.raises(safekern.BoundsError) as info:
        SYNC_POINTS[where](d)
    assert_shift_write(info.value, threads_per_block=None if "forall" in where else 32)
    # Raised once and reset: nothing is pending, and the next correct launch works.
    safekern.sync()
    h = np.zeros(40)
    K.fill_index[1, 64](h)
    np.testing.assert_array_equal(h, np.arange(40))
    d2 = cuda.to_device(np.zeros(40))
    K.fill_index[2, 32](d2)
    np.testing.assert_array_equal(d2.copy_to_host(), np.arange(40))


def test_a_kernel_reading_device_arrays_while_a_failure_is_pending_does_not_raise_it():
    # (a kernel's own element reads are no sync point: on the simulator they go through the
    # device array's __getitem__ that a host read `d[i]` takes too)
    d = cuda.to_device(np.zeros(32))
    K.shift_write[1, 32](d)
    src = cuda.to_device(np.arange(40.0))
    K.copy_all[1, 32](d, src)                    # returns: the failure stays pending
    with pytest.raises(safekern.BoundsError) as info:
        cuda.synchronize()
    assert_shift_write(info.value)


def test_correct_kernels_raise_nowhere():
    d = cuda.to_device(np.zeros(50))
    s = cuda.stream()
    K.fill_index[2, 32, s](d)
    s.synchronize()
    K.fill_index[2, 32](d)
    cuda.synchronize()
    out = np.empty(50)
    assert d.copy_to_host(out) is out                 # the hooks return what numba returns
    np.testing.assert_array_equal(out, np.arange(50))
    np.testing.assert_array_equal(np.asarray(d), np.arange(50))
    assert d[7] == 7.0 and d[2:5].copy_to_host().tolist() == [2.0, 3.0, 4.0]
    h = np.zeros(50)
    K.fill_index.forall(50)(h)
    np.testing.assert_array_equal(h, np.arange(50))
    safekern.sync()


def test_an_asynchronous_copy_raises_at_the_sync_that_completes_it():
    d = cuda.to_device(np.zeros(32))
    s = cuda.stream()
    K.shift_write[1, 32, s](d)
    host = cuda.pinned_array(32)
    d.copy_to_host(host, stream=s)                    # returns at once, raises nothing
    assert d[2:4] is not None                         # a view: copies nothing, raises nothing
    with pytest.raises(safekern.BoundsError) as info:
        s.synchronize()
    assert_shift_write(info.value)


def test_sync_points_off_leaves_only_sync(monkeypatch):
    set_safekern(monkeypatch, SYNC_POINTS="0")
    d = launch_bad()
    cuda.synchronize()
    d.copy_to_host()
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert_shift_write(info.value)


def test_hooks_are_idempotent_and_reversible():
    hooked = cuda.synchronize
    assert hasattr(hooked, "__safekern_sync_point__")
    numba_sync.install()
    sync_points.install("numba", numba_sync._hooks())
    assert cuda.synchronize is hooked                  # not wrapped twice
    assert not hasattr(hooked.__safekern_sync_point__, "__safekern_sync_point__")
    assert "copy_to_host" in " ".join(sync_points.installed()["numba"])

    sync_points.uninstall("numba")
    assert cuda.synchronize is hooked.__safekern_sync_point__
    assert not sync_points.is_installed("numba")
    d = launch_bad()
    cuda.synchronize()
    d.copy_to_host()                                   # numba's own calls: nothing raised
    with pytest.raises(safekern.BoundsError):
        safekern.sync()

    numba_sync.install()
    launch_bad()
    with pytest.raises(safekern.BoundsError):
        cuda.synchronize()


def test_concurrent_sync_points_raise_a_failure_once():
    launch_bad()
    raised = []
    barrier = threading.Barrier(8)

    def wait():
        barrier.wait()
        try:
            cuda.synchronize()
        except safekern.BoundsError as err:
            raised.append(err)

    threads = [threading.Thread(target=wait) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(raised) == 1
    assert_shift_write(raised[0])


def test_threads_launching_correct_kernels_see_nothing():
    errors = []
    # numba's simulator runs one launch at a time (it swaps a fake `cuda` module into the
    # process); the sync points themselves still run concurrently.
    launching = threading.Lock()

    def work(n):
        try:
            for _ in range(5):
                d = cuda.to_device(np.zeros(n))
                if SIMULATOR:
                    with launching:
                        K.fill_index[(n + 31) // 32, 32](d)
                else:
                    K.fill_index[(n + 31) // 32, 32](d)
                np.testing.assert_array_equal(d.copy_to_host(), np.arange(n))
        except Exception as exc:      # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(20 + k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors


# -- never lost -----------------------------------------------------------------------------


def test_stand_in_record_keeps_the_failure():
    r = np.zeros(4, K.RECORD)
    r["x"] = np.arange(4)
    out = cuda.device_array(4)
    K.record_read[1, 4](cuda.to_device(r), out)
    with pytest.raises(safekern.BoundsError) as info:
        out.copy_to_host()
    err = info.value
    assert (err.array, err.index, err.size) == ("r", 4, 4)
    assert err.lineno == K.expected_line("record_read")
    assert not getattr(err, "__notes__", None)        # the stand-in raised nothing else
    K.record_read[1, 3](cuda.to_device(r), out)
    np.testing.assert_array_equal(out.copy_to_host()[:3], [2.0, 4.0, 6.0])


def test_device_function_failure_survives_an_unbound_local():
    vals = cuda.to_device(np.arange(8, dtype=np.float64))
    out = cuda.device_array(8)
    K.calls_first_or_zero[1, 8](vals, out)
    with pytest.raises(safekern.BoundsError) as info:
        cuda.synchronize()
    err = info.value
    assert (err.array, err.index, err.size, err.kernel) == ("vals", 8, 8, "first_or_zero")
    assert err.lineno == K.expected_line("first_or_zero")
    out7 = cuda.device_array(7)
    K.calls_first_or_zero[1, 7](vals, out7)
    np.testing.assert_array_equal(out7.copy_to_host(), np.arange(1, 8) * 2.0)


@pytest.mark.skipif(not SIMULATOR, reason="a host exception inside a kernel: simulator only")
def test_an_exception_with_no_failure_behind_it_is_raised_as_is():
    with pytest.raises(ZeroDivisionError):
        K.raises_itself[1, 4](cuda.to_device(np.zeros(4)))
    safekern.sync()                                    # nothing pending, nothing skipped
    d = cuda.to_device(np.zeros(4))
    K.fill_index[1, 4](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4))


# -- pending at exit ------------------------------------------------------------------------

_EXIT_SCRIPT = """
import numpy as np
from numba import cuda
from tests.numba import sync_kernels as K
K.shift_write[1, 32](cuda.to_device(np.zeros(32)))
print("launched", flush=True)
"""


@pytest.mark.parametrize("exit_on_pending,status", [("0", 0), ("1", 1)])
def test_pending_at_exit_warns_and_may_fail_the_process(exit_on_pending, status, tmp_path):
    env = dict(os.environ, SAFEKERN_EXIT_ON_PENDING=exit_on_pending,
               SAFEKERN_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert "launched" in proc.stdout
    assert "a kernel failure was still pending at exit" in proc.stderr, proc.stderr[-2000:]
    assert "index 32 out of bounds for axis 0 with size 32" in proc.stderr
    assert proc.returncode == status, proc.stderr[-2000:]


@pytest.mark.skipif(not SIMULATOR, reason="a smoke run; the H200 figures come from the benchmark")
def test_sync_point_benchmark_runs():
    from benchmarks import sync_points as bench

    result = bench.measure(reps=5, batches=2)
    for name in ("copy_to_host(out)", "cuda.synchronize()"):
        entry = result["calls"][name]
        assert entry["plain"] > 0 and entry["hooked, nothing pending"] > 0
    assert sync_points.is_installed("numba")        # the benchmark leaves the hooks in
