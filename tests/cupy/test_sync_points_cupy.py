"""A failure reaches a CuPy user at CuPy's own sync points: ndarray.get() (and what calls it:
tolist, item, float), cupy.asnumpy(), Stream.synchronize() (user streams, the null stream, the
current stream), Device.synchronize() and Event.synchronize() raise it, and reset it as
safekern.sync() does; asynchronous copies raise at the synchronize() that completes them; the
hooks change no result.

The hooks' installation is checked wherever CuPy imports (no device needed); everything that
launches is marked `gpu`:

    python -m pytest tests/cupy/test_sync_points_cupy.py -m gpu -v
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from safekern import runtime, sync_points
from safekern.backends.cupy import sync as cupy_sync  # noqa: E402
from tests.cupy.cuda_c_kernels import line  # noqa: E402
from tests.support.checks import check_bounds_error
from tests.support.settings import set_safekern

pytestmark = pytest.mark.timeout(180, method="thread")

N = 64
SHIFT = r"""extern "C" __global__ void shift(const float* a, float* out, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i + off];   // @shift
}"""
MARK = "__safekern_sync_point__"


# -- installation (no device needed) --------------------------------------------------------

def _originals():
    return {"get": cp.ndarray.get, "asnumpy": cp.asnumpy,
            "stream": cupy_sync.stream_class().__dict__["synchronize"],
            "device": cp.cuda.Device.__dict__["synchronize"],
            "event": cp.cuda.Event.__dict__["synchronize"]}


def test_hooks_are_installed_where_cupy_defines_them_and_taken_out_exactly():
    sync_points.uninstall("cupy")
    types = (cp.ndarray, cp.cuda.Device, cp.cuda.Stream, cp.cuda.Event)
    try:
        before = _originals()
        assert "get" not in cp.ndarray.__dict__     # inherited from the Cython base
        assert not any(hasattr(f, MARK) for f in before.values())
        cupy_sync.install()
        cupy_sync.install()
        sync_points.install("cupy", cupy_sync.hooks())
        after = _originals()
        for name, fn in after.items():
            assert getattr(fn, MARK) is before[name], name           # wrapped once
        assert "get" in cp.ndarray.__dict__
        assert sorted(sync_points.installed()["cupy"]) == sorted(
            ["ndarray.get", "cupy.asnumpy", "_BaseStream.synchronize", "Device.synchronize",
             "Event.synchronize"])
        # Every stream class reaches the wrapper; users get CuPy's own types.
        assert cp.cuda.ExternalStream.synchronize is after["stream"]
        assert cp.cuda.Stream.synchronize is after["stream"]
        assert (cp.ndarray, cp.cuda.Device, cp.cuda.Stream, cp.cuda.Event) == types
        assert cp.cuda.Device.__module__ == "cupy.cuda.device"
        sync_points.uninstall("cupy")
        assert "get" not in cp.ndarray.__dict__
        assert _originals() == before
    finally:
        cupy_sync.install()


# -- on the device ----------------------------------------------------------------------------

def _device_count() -> int:
    try:
        return cp.cuda.runtime.getDeviceCount()
    except Exception:       # no driver
        return 0


class Setup:
    def __init__(self):
        self.kernel = skcp.RawKernel(SHIFT, "shift", filename="shift.cu")
        self.a = cp.arange(N, dtype=cp.float32)
        self.out = cp.zeros(N, cp.float32)
        self.stream = cp.cuda.Stream(non_blocking=True)

    def launch(self, off=1, stream=None):
        """off=1: thread 31 of block 1 reads a[64] of 64."""
        self.kernel((2,), (32,), (self.a, self.out, np.int32(N), np.int32(off)),
                    stream=stream)


@pytest.fixture
def gpu(no_pending_failure):
    if _device_count() == 0:
        pytest.skip("no CUDA device")
    cupy_sync.install()             # a test may have taken the hooks out
    return Setup()


def assert_shift(err):
    check_bounds_error(err, kernel="shift", filename="shift.cu", lineno=line(SHIFT, "shift"),
                       array="a", axis=0, index=N, size=N, thread=(31, 0, 0), block=(1, 0, 0))


def _on_stream(call):
    def run(g):
        g.launch(stream=g.stream)
        call(g)
    return run


def _default(call):
    def run(g):
        g.launch()
        call(g)
    return run


def _event(g):
    g.launch()
    e = cp.cuda.Event()
    e.record()
    e.synchronize()


SYNC_POINTS = {
    "ndarray.get": _default(lambda g: g.out.get()),
    "ndarray.get(out=)": _default(lambda g: g.out.get(out=np.zeros(N, np.float32))),
    "ndarray.get(stream=)": _on_stream(lambda g: g.out.get(stream=g.stream)),
    "ndarray.get of a view": _default(lambda g: g.out[::2].get()),
    "ndarray.tolist": _default(lambda g: g.out.tolist()),
    "ndarray.item": _default(lambda g: g.out[N - 1].item()),
    "float(ndarray)": _default(lambda g: float(g.out[N - 1])),
    "cupy.asnumpy": _default(lambda g: cp.asnumpy(g.out)),
    "cupy.asnumpy(stream=)": _on_stream(lambda g: cp.asnumpy(g.out, stream=g.stream)),
    "Stream.synchronize": _on_stream(lambda g: g.stream.synchronize()),
    "Stream.null.synchronize": _default(lambda g: cp.cuda.Stream.null.synchronize()),
    "current stream synchronize": _default(
        lambda g: cp.cuda.get_current_stream().synchronize()),
    "Device().synchronize": _default(lambda g: cp.cuda.Device().synchronize()),
    "Device(0).synchronize": _default(lambda g: cp.cuda.Device(0).synchronize()),
    "ndarray.device.synchronize": _default(lambda g: g.out.device.synchronize()),
    "Event.synchronize": _event,
}


@pytest.mark.gpu
@pytest.mark.parametrize("where", list(SYNC_POINTS))
def test_each_sync_point_raises_the_failure(gpu, where):
    with pytest.raises(safekern.BoundsError) as info:
        SYNC_POINTS[where](gpu)
    assert_shift(info.value)
    # Raised once and reset; the next correct launch computes the right result.
    safekern.sync()
    gpu.launch(off=0)
    np.testing.assert_array_equal(gpu.out.get(), np.arange(N))


@pytest.mark.gpu
def test_the_copy_that_raised_was_done(gpu):
    # The data a raising call copied is there (and untrusted): the failing thread left its
    # element as it was, every other one holds the kernel's result.
    gpu.launch()
    host = np.full(N, -1, np.float32)
    with pytest.raises(safekern.BoundsError):
        gpu.out.get(out=host)
    np.testing.assert_array_equal(host[:N - 1], np.arange(1, N))
    assert host[N - 1] == 0


@pytest.mark.gpu
def test_correct_kernels_raise_nowhere(gpu):
    gpu.launch(off=0)
    host = np.zeros(N, np.float32)
    assert gpu.out.get(out=host) is host                # what CuPy returns, unwrapped
    np.testing.assert_array_equal(host, np.arange(N))
    np.testing.assert_array_equal(cp.asnumpy(gpu.out), np.arange(N))
    assert gpu.out.tolist() == list(range(N))
    gpu.launch(off=0, stream=gpu.stream)
    assert gpu.stream.synchronize() is None
    assert cp.cuda.Device().synchronize() is None
    e = cp.cuda.Event()
    e.record()
    assert e.synchronize() is None
    assert cp.asnumpy([1, 2]).tolist() == [1, 2]        # host data: no device, no check
    safekern.sync()


@pytest.mark.gpu
def test_asynchronous_copies_raise_at_the_synchronize_that_completes_them(gpu):
    import cupyx

    gpu.launch(stream=gpu.stream)
    pinned = cupyx.empty_pinned(N, np.float32)
    pinned2 = cupyx.empty_pinned(N, np.float32)
    assert gpu.out.get(stream=gpu.stream, out=pinned, blocking=False) is pinned
    assert cp.asnumpy(gpu.out, stream=gpu.stream, out=pinned2, blocking=False) is pinned2
    with pytest.raises(safekern.BoundsError) as info:
        gpu.stream.synchronize()
    assert_shift(info.value)
    np.testing.assert_array_equal(pinned[:N - 1], np.arange(1, N))
    np.testing.assert_array_equal(pinned2[:N - 1], np.arange(1, N))


@pytest.mark.gpu
def test_sync_with_the_null_stream_as_target(gpu):
    # Stream.null carries device_id -1: the current device.
    gpu.launch()
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync(cp.cuda.Stream.null)
    assert_shift(info.value)


@pytest.mark.gpu
def test_sync_points_off_leaves_only_sync(gpu, monkeypatch):
    set_safekern(monkeypatch, SYNC_POINTS="0")
    gpu.launch()
    cp.cuda.Device().synchronize()
    gpu.out.get()
    cp.asnumpy(gpu.out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert_shift(info.value)


@pytest.mark.gpu
def test_nothing_pending_costs_one_test(gpu, monkeypatch):
    # (checked launches: with plain launches on, these in-bounds ones would run the user's
    # kernel, which leaves nothing pending)
    from tests.support.settings import safekern_setting

    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        gpu.launch(off=0)
        safekern.sync()
        called = []
        monkeypatch.setattr(runtime, "sync_point", called.append)
        gpu.out.get()
        cp.cuda.Device().synchronize()
        gpu.stream.synchronize()
        assert called == []
        gpu.launch(off=0)
        cp.cuda.Device(0).synchronize()
        assert called == [0]                      # with a launch pending, the check runs


@pytest.mark.gpu
def test_hooks_taken_out_leave_only_sync(gpu):
    gpu.kernel.kernel                 # loaded now: a first load would put the hooks back
    sync_points.uninstall("cupy")
    try:
        gpu.launch()
        cp.cuda.Device().synchronize()
        gpu.out.get()
        with pytest.raises(safekern.BoundsError):
            safekern.sync()
        # The next checked kernel loaded puts them back.
        assert not sync_points.is_installed("cupy")
        skcp.RawKernel(SHIFT.replace("shift", "shift2"), "shift2").kernel
        assert sync_points.is_installed("cupy")
    finally:
        cupy_sync.install()
    gpu.launch()
    with pytest.raises(safekern.BoundsError):
        gpu.out.get()


@pytest.mark.gpu
def test_a_sync_point_of_another_device_raises_nothing(gpu):
    if _device_count() < 2:
        pytest.skip("needs two devices")
    gpu.launch()
    cp.cuda.Device(1).synchronize()
    with cp.cuda.Device(1):
        cp.ones(4, cp.float32).get()
    with pytest.raises(safekern.BoundsError) as info:
        cp.cuda.Device(0).synchronize()
    assert_shift(info.value)


@pytest.mark.gpu
def test_concurrent_sync_points_raise_a_failure_once(gpu):
    gpu.launch()
    raised = []
    barrier = threading.Barrier(8)

    def wait():
        barrier.wait()
        try:
            cp.cuda.Device(0).synchronize()
        except safekern.BoundsError as err:
            raised.append(err)

    threads = [threading.Thread(target=wait) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(raised) == 1
    assert_shift(raised[0])


@pytest.mark.gpu
def test_threads_launching_correct_kernels_see_nothing(gpu):
    errors = []

    def work(k):
        try:
            s = cp.cuda.Stream(non_blocking=True)
            a = cp.arange(N, dtype=cp.float32) + k
            out = cp.zeros(N, cp.float32)
            for _ in range(5):
                gpu.kernel((2,), (32,), (a, out, np.int32(N), np.int32(0)), stream=s)
                np.testing.assert_array_equal(out.get(stream=s), np.arange(N) + k)
                s.synchronize()
        except Exception as exc:      # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
