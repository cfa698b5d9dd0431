"""CUDA graphs with checked CuPy kernels (issue 23, part 3): a checked kernel captures on any
CuPy stream (its first launch too), replays any number of times, a failure of a replay raises at
the next sync point with the kernel, line, array and index, and after it was raised replays run
normally again. The same under `torch.cuda.graph`, the kernel launched on torch's capture stream.
The bookkeeping without a GPU: tests/core/test_torch_sync.py.

    python -m pytest tests/cupy/test_graphs_cupy.py -m gpu -v
"""
from __future__ import annotations

import gc
import uuid

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from safekern import runtime  # noqa: E402
from tests.cupy.cuda_c_kernels import GATHER, line  # noqa: E402
from tests.support.checks import check_bounds_error  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]

N = 64
BAD = 37


class Captured:
    """gather(out, src, idx, n) captured into a graph on a non-blocking stream."""

    def __init__(self, fresh=False):
        if cp.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
        # fresh: a source no test compiled or loaded before, so its first launch (compiling,
        # loading the module and a launch variant) happens inside the capture
        code = GATHER + (f"// {uuid.uuid4().hex}\n" if fresh else "")
        self.kernel = skcp.RawKernel(code, "gather", filename="gather.cu")
        self.stream = cp.cuda.Stream(non_blocking=True)
        with self.stream:
            self.src = cp.arange(N, dtype=cp.float32)
            self.idx = cp.arange(N, dtype=cp.int32)
            self.out = cp.zeros(N, dtype=cp.float32)
        self.stream.synchronize()
        with self.stream:
            self.stream.begin_capture()
            self.kernel((2,), (32,), (self.out, self.src, self.idx, np.int32(N)))
            self.graph = self.stream.end_capture()

    def set_index(self, value):
        with self.stream:
            self.idx[BAD] = value

    def replay(self, times=1):
        for _ in range(times):
            self.graph.launch(self.stream)


def assert_gather(err):
    check_bounds_error(err, kernel="gather", filename="gather.cu", lineno=line(GATHER, "gather"),
                       array="src", index=1000, size=N, thread=(BAD % 32, 0, 0),
                       block=(BAD // 32, 0, 0))


@pytest.fixture
def graph():
    return Captured()


def test_a_capture_runs_nothing_and_leaves_nothing_pending(graph):
    assert not runtime.pending_sources() and not runtime.capturing
    graph.stream.synchronize()
    assert float(graph.out.sum()) == 0.0                 # captured, not run


SYNC_AFTER_REPLAY = {
    "stream.synchronize()": lambda g: g.stream.synchronize(),
    "out.get()": lambda g: g.out.get(),
    "safekern.sync()": lambda g: safekern.sync(),
    "Device().synchronize()": lambda g: cp.cuda.Device().synchronize(),
}


@pytest.mark.parametrize("where", list(SYNC_AFTER_REPLAY))
def test_replay_good_then_bad_then_good(graph, where):
    graph.replay(3)
    graph.stream.synchronize()
    np.testing.assert_array_equal(graph.out.get(), np.arange(N))
    graph.set_index(1000)
    graph.replay()
    with pytest.raises(safekern.BoundsError) as info:
        SYNC_AFTER_REPLAY[where](graph)
    assert_gather(info.value)
    graph.set_index(BAD)
    graph.out.fill(-1)
    graph.replay(2)                                    # after the failure: runs normally
    graph.stream.synchronize()
    np.testing.assert_array_equal(graph.out.get(), np.arange(N))


def test_a_kernels_first_launch_can_be_inside_the_capture():
    graph = Captured(fresh=True)
    graph.replay()
    graph.stream.synchronize()
    np.testing.assert_array_equal(graph.out.get(), np.arange(N))
    graph.set_index(1000)
    graph.replay()
    with pytest.raises(safekern.BoundsError) as info:
        graph.stream.synchronize()
    assert_gather(info.value)


def test_replays_on_other_streams_and_the_current_one(graph):
    other = cp.cuda.Stream(non_blocking=True)
    graph.set_index(1000)
    graph.stream.synchronize()
    graph.graph.launch(stream=other)
    with pytest.raises(safekern.BoundsError):
        other.synchronize()
    graph.set_index(BAD)
    graph.stream.synchronize()
    with other:
        graph.graph.launch()                             # CuPy's current stream
    other.synchronize()
    np.testing.assert_array_equal(graph.out.get(), np.arange(N))


def test_sync_points_wait_while_capturing_and_sync_refuses(graph):
    graph.set_index(1000)
    graph.replay()                                       # fails; pending
    cp.cuda.runtime.streamSynchronize(graph.stream.ptr)  # (not a sync point: raises nothing)
    second = cp.cuda.Stream(non_blocking=True)
    with second:
        second.begin_capture()
        graph.kernel((2,), (32,), (graph.out, graph.src, graph.idx, np.int32(N)))
        graph.stream.synchronize()           # another stream: CuPy allows it; the check waits
        with pytest.raises(RuntimeError, match="capture is in progress"):
            safekern.sync()
        assert second.is_capturing()         # the capture survived
        captured = second.end_capture()
    with pytest.raises(safekern.BoundsError) as info:
        graph.stream.synchronize()           # the failure from before the capture
    assert_gather(info.value)
    graph.set_index(BAD)
    graph.stream.synchronize()
    captured.launch(second)
    second.synchronize()
    np.testing.assert_array_equal(graph.out.get(), np.arange(N))


@pytest.mark.parametrize("warm", [True, False], ids=["warmed-up", "first-launch-captured"])
def test_torch_cuda_graph_captures_a_checked_cupy_kernel(warm):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    kernel = skcp.RawKernel(GATHER + f"// {uuid.uuid4().hex}\n", "gather",
                            filename="gather.cu")
    src_t = torch.arange(N, dtype=torch.float32, device="cuda")
    idx_t = torch.arange(N, dtype=torch.int32, device="cuda")
    out_t = torch.zeros(N, dtype=torch.float32, device="cuda")
    src, idx, out = cp.asarray(src_t), cp.asarray(idx_t), cp.asarray(out_t)   # views
    if warm:                              # what PyTorch advises before a capture
        kernel((2,), (32,), (out, src, idx, np.int32(N)))
        out_t.fill_(0)
    torch.cuda.synchronize()
    # Earlier tests' CuPy graphs and modules left in reference cycles: freed now, not by a
    # collection during the capture (freeing them there is a call the global mode forbids).
    gc.collect()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):             # the global capture mode, PyTorch's default
        stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        kernel((2,), (32,), (out, src, idx, np.int32(N)), stream=stream)
    assert not runtime.pending_sources() and not runtime.capturing
    assert out_t.sum().item() == 0                # captured, not run
    g.replay()
    assert out_t.tolist() == list(range(N))
    idx_t[BAD] = 1000
    g.replay()
    with pytest.raises(safekern.BoundsError) as info:
        torch.cuda.synchronize()
    assert_gather(info.value)
    idx_t[BAD] = BAD
    out_t.fill_(-1)
    g.replay()
    g.replay()
    assert out_t.cpu().tolist() == list(range(N))
