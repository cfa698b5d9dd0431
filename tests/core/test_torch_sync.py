"""PyTorch's sync points and CUDA graphs, hooked by safekern (backends/torch), on a stand-in
torch module (tests/support/torch_stand_in.py): CI has no PyTorch. A planted failure source
stands for a checked kernel that failed on a device. What is checked: which calls raise a
pending failure (CUDA tensors copied to the host, synchronize calls) and on which device, which
do not (CPU tensors, non-blocking copies, dtype conversions), that the original call ran first,
that the hooks go in once torch is imported (at the next launch that makes a device pending),
that a captured launch is not pending while a replay is, and that sync points wait while a
capture is in progress. The same on a GPU with real PyTorch: tests/torch/.
"""
from __future__ import annotations

import sys

import pytest

import safekern
from safekern import runtime, sync_points
from safekern.backends import INSTALLERS, capture
from safekern.backends.torch import graphs as torch_graphs, sync as torch_sync
from tests.support.planted_source import PlantedSource, dev1  # noqa: F401 -- a fixture
from tests.support.settings import safekern_setting
from tests.support.torch_stand_in import make_torch


def _unhook():
    sync_points.uninstall(torch_sync.BACKEND)
    sync_points.uninstall(torch_graphs.BACKEND)


@pytest.fixture
def torch(monkeypatch, no_pending_failure):
    fake = make_torch()
    monkeypatch.setitem(sys.modules, "torch", fake)
    # The stand-in's streams are numbers, not CUDA streams: the real driver (on a GPU machine)
    # is never asked about them.
    monkeypatch.setattr(capture._Driver, "loaded", True)
    monkeypatch.setattr(capture._Driver, "is_capturing", None)
    _unhook()
    capture.reset()
    torch_sync.install()
    yield fake
    _unhook()
    capture.reset()


def _cuda(torch):
    return torch.tensor([3.0, 4.0], device="cuda:1")


SYNC_POINTS = {
    "cpu": lambda t, torch: t.cpu(),
    "item": lambda t, torch: t.item(),
    "tolist": lambda t, torch: t.tolist(),
    "numpy(force=True)": lambda t, torch: t.numpy(force=True),
    "bool": lambda t, torch: bool(t),
    "float": lambda t, torch: float(t),
    "int": lambda t, torch: int(t),
    "to('cpu')": lambda t, torch: t.to("cpu"),
    "to(device='cpu')": lambda t, torch: t.to(device="cpu"),
    "to(torch.device('cpu'))": lambda t, torch: t.to(torch.device("cpu")),
    "to(cpu_tensor)": lambda t, torch: t.to(torch.tensor([0.0])),
    "to('cpu', dtype, False)": lambda t, torch: t.to("cpu", torch.float32, False),
    "to('cpu', non_blocking=False)": lambda t, torch: t.to("cpu", non_blocking=False),
}


@pytest.mark.parametrize("where", list(SYNC_POINTS))
def test_a_cuda_tensor_copied_to_the_host_raises_after_the_original_ran(torch, dev1, where):
    t = _cuda(torch)
    dev1.fail()
    with pytest.raises(safekern.BoundsError, match="index 99 out of bounds"):
        SYNC_POINTS[where](t, torch)
    assert torch.log and torch.log[-1][1] == "cuda"          # the original ran first
    assert not runtime.pending_sources() and dev1.failure is None
    SYNC_POINTS[where](t, torch)                               # raised once


NOT_SYNC_POINTS = {
    "cpu tensor .cpu()": lambda t, c, torch: c.cpu(),
    "cpu tensor .item()": lambda t, c, torch: c.item(),
    "cpu tensor .tolist()": lambda t, c, torch: c.tolist(),
    "cpu tensor .numpy()": lambda t, c, torch: c.numpy(),
    "cpu tensor bool()": lambda t, c, torch: bool(c),
    "cpu tensor .to('cpu')": lambda t, c, torch: c.to("cpu"),
    "to('cuda')": lambda t, c, torch: t.to("cuda"),
    "to(0)": lambda t, c, torch: t.to(0),
    "to(dtype)": lambda t, c, torch: t.to(torch.float32),
    "to(dtype, non_blocking)": lambda t, c, torch: t.to(torch.float32, True),
    "to('cpu', non_blocking=True)": lambda t, c, torch: t.to("cpu", non_blocking=True),
    "to('cpu', dtype, True)": lambda t, c, torch: t.to("cpu", torch.float32, True),
    "to(cpu_tensor, True)": lambda t, c, torch: t.to(c, True),
    "to(memory_format=)": lambda t, c, torch: t.to(memory_format=None),
    "synchronize(other device)": lambda t, c, torch: torch.cuda.synchronize(0),
    "synchronize('cuda:0')": lambda t, c, torch: torch.cuda.synchronize("cuda:0"),
    "stream of other device": lambda t, c, torch: torch.cuda.Stream(device=0).synchronize(),
}


@pytest.mark.parametrize("where", list(NOT_SYNC_POINTS))
def test_calls_that_do_not_wait_for_that_device_raise_nothing(torch, dev1, where):
    dev1.fail()
    NOT_SYNC_POINTS[where](_cuda(torch), torch.tensor([1.0]), torch)
    assert dev1.checks == 0 and runtime.pending_sources() == [dev1]


def test_numpy_of_a_cuda_tensor_raises_torchs_error_and_the_failure_stays(torch, dev1):
    dev1.fail()
    with pytest.raises(TypeError, match="numpy"):
        _cuda(torch).numpy()
    assert runtime.pending_sources() == [dev1]


SYNCHRONIZE = {
    "torch.cuda.synchronize(1)": lambda torch: torch.cuda.synchronize(1),
    "torch.cuda.synchronize('cuda:1')": lambda torch: torch.cuda.synchronize("cuda:1"),
    "torch.cuda.synchronize(device=torch.device)":
        lambda torch: torch.cuda.synchronize(device=torch.device("cuda", 1)),
    "torch.cuda.synchronize() on the current device": lambda torch: (
        torch._state.update(current=1), torch.cuda.synchronize()),
    "Stream.synchronize": lambda torch: torch.cuda.Stream(device=1).synchronize(),
    "ExternalStream.synchronize": lambda torch: torch.cuda.ExternalStream(1).synchronize(),
    "current_stream().synchronize": lambda torch: (
        torch.cuda.set_stream(torch.cuda.Stream(device=1)),
        torch.cuda.current_stream().synchronize()),
    "Event.synchronize": lambda torch: _recorded_event(torch).synchronize(),
}


def _recorded_event(torch):
    event = torch.cuda.Event()
    event.record(torch.cuda.Stream(device=1))
    return event


@pytest.mark.parametrize("where", list(SYNCHRONIZE))
def test_synchronize_calls_raise_for_their_device(torch, dev1, where):
    dev1.fail()
    with pytest.raises(safekern.BoundsError):
        SYNCHRONIZE[where](torch)
    assert not runtime.pending_sources()


def test_torch_is_hooked_when_imported_after_safekern_at_the_next_launch(monkeypatch, dev1,
                                                                          no_pending_failure):
    _unhook()
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(runtime, "_on_pending", [])
    try:
        sync_points.watch(INSTALLERS["torch"])  # what numba's and CuPy's hooks do
        assert not torch_sync.install_if_imported()
        assert runtime._on_pending == [INSTALLERS["torch"]]
        fake = make_torch()
        monkeypatch.setitem(sys.modules, "torch", fake)     # the user imports torch
        assert "cpu" not in fake.Tensor.__dict__
        dev1.fail()                             # a checked launch: the device is pending
        assert runtime._on_pending == []
        assert "Tensor.cpu" in sync_points.installed()["torch"]
        with pytest.raises(safekern.BoundsError):
            fake.tensor([1.0], device="cuda:1").item()
    finally:
        _unhook()


def test_uninstall_gives_torch_its_own_methods_back(torch):
    assert sorted(sync_points.installed()["torch"]) == sorted(
        [f"Tensor.{m}" for m in ("cpu", "item", "tolist", "numpy", "__bool__", "__float__",
                                 "__int__", "to")]
        + ["torch.cuda.synchronize", "Stream.synchronize", "Event.synchronize"])
    assert sync_points.installed()["torch-graphs"] == [
        "CUDAGraph.capture_begin", "CUDAGraph.capture_end", "CUDAGraph.replay"]
    _unhook()
    assert not {"cpu", "item", "to", "__bool__"} & set(torch.Tensor.__dict__)
    assert torch.Tensor.cpu is torch._C.TensorBase.cpu
    assert not hasattr(torch.cuda.synchronize, "__safekern_sync_point__")


def test_with_sync_points_off_only_the_graph_hooks_go_in(monkeypatch, torch):
    _unhook()
    with safekern_setting(monkeypatch, "SAFEKERN_SYNC_POINTS", "0"):
        assert torch_sync.install_if_imported()
        assert "torch" not in sync_points.installed()
        assert "torch-graphs" in sync_points.installed()    # replays must still be pending
    sync_points.watch(INSTALLERS["torch"])      # (what the next numba or CuPy load does)
    assert "torch" in sync_points.installed()
    with safekern_setting(monkeypatch, "SAFEKERN_CHECKS", "0"):
        _unhook()
        torch_sync.install()
        assert not {"torch", "torch-graphs"} & set(sync_points.installed())


# -- CUDA graphs ------------------------------------------------------------------------------

def _capture(torch, source, stream=None):
    """torch.cuda.graph's steps, with one checked launch of `source` captured in between."""
    stream = stream or torch.cuda.Stream(device=1)
    torch.cuda.set_stream(stream)
    graph = torch.cuda.CUDAGraph()
    graph.capture_begin()
    assert runtime.capturing == {stream.cuda_stream}
    capture.launched(source, stream.cuda_stream)        # what backends/cupy/graphs does
    graph.capture_end()
    return graph, stream


def test_a_captured_launch_is_not_pending_and_each_replay_is(torch, dev1):
    graph, _ = _capture(torch, dev1)
    assert not runtime.capturing and not dev1.dirty and not runtime.pending_sources()
    assert capture.sources_of(graph) == {dev1}
    graph.replay()                                      # a good replay
    assert runtime.pending_sources() == [dev1]
    torch.cuda.synchronize(1)
    assert dev1.checks == 1 and not runtime.pending_sources()
    graph.replay()
    dev1.failure = safekern.BoundsError(index=5, size=4)     # this replay fails
    with pytest.raises(safekern.BoundsError):
        _cuda(torch).cpu()
    graph.replay()                                      # after the failure: runs normally
    assert torch.cuda.synchronize(1) is None and dev1.checks == 3
    assert [e for e in torch.log if e[0] == "replay"] == [("replay",)] * 3


def test_sync_points_wait_during_a_capture_and_sync_refuses(torch, dev1):
    other = PlantedSource(0)
    other.fail()                                # failed before the capture began
    try:
        stream = torch.cuda.Stream(device=1)
        torch.cuda.set_stream(stream)
        graph = torch.cuda.CUDAGraph()
        graph.capture_begin()
        torch.cuda.Stream(device=0).synchronize()     # would end the capture: waits
        assert other.checks == 0
        with pytest.raises(RuntimeError, match="stream capture is in progress"):
            safekern.sync()
        graph.capture_end()
        with pytest.raises(safekern.BoundsError):
            torch.cuda.synchronize(0)
    finally:
        with runtime._lock:
            if other in runtime._pending:
                runtime._pending.remove(other)


def test_a_failed_capture_registers_no_graph(torch, dev1):
    stream = torch.cuda.Stream(device=1)
    torch.cuda.set_stream(stream)
    graph = torch.cuda.CUDAGraph()
    graph.capture_begin()
    capture.launched(dev1, stream.cuda_stream)
    torch._state["end_error"] = RuntimeError("operation failed due to a previous error")
    with pytest.raises(RuntimeError, match="previous error"):
        graph.capture_end()
    assert not runtime.capturing and id(graph) not in capture._graphs
    safekern.sync()                             # the capture is over: sync works again


def test_a_graph_replayed_into_a_capture_joins_that_capture(torch, dev1):
    inner, _ = _capture(torch, dev1)
    outer_stream = torch.cuda.Stream(device=1)
    torch.cuda.set_stream(outer_stream)
    outer = torch.cuda.CUDAGraph()
    outer.capture_begin()
    inner.replay()                              # captured as a child graph: nothing ran
    assert not runtime.pending_sources()
    outer.capture_end()
    assert capture.sources_of(outer) == {dev1}
    outer.replay()
    assert runtime.pending_sources() == [dev1]


def test_a_capture_that_began_before_the_hooks_is_taken_up(monkeypatch, torch, dev1):
    _unhook()
    stream = torch.cuda.Stream(device=1)
    torch.cuda.set_stream(stream)
    graph = torch.cuda.CUDAGraph()
    graph.capture_begin()                       # not hooked yet
    assert not runtime.capturing
    torch_sync.install()                        # (a first checked launch inside the capture)
    assert runtime.capturing == {stream.cuda_stream}
    capture.launched(dev1, stream.cuda_stream)
    graph.capture_end()
    assert not runtime.capturing and capture.sources_of(graph) == {dev1}


def test_a_graph_whose_capture_was_not_seen_marks_every_captured_source(torch, dev1):
    _capture(torch, dev1)
    unseen = torch.cuda.CUDAGraph()
    unseen.replay()
    assert runtime.pending_sources() == [dev1]


def test_a_launch_that_does_not_name_its_stream_during_a_capture_is_kept_by_the_graph(
        monkeypatch, torch, dev1):
    # numba's launch path calls runtime.after_launch without saying whether its stream was
    # capturing: the graph keeps the source; SAFEKERN_SYNC_EVERY_LAUNCH waits for the capture.
    stream = torch.cuda.Stream(device=1)
    torch.cuda.set_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with safekern_setting(monkeypatch, "SAFEKERN_SYNC_EVERY_LAUNCH", "1"):
        graph.capture_begin()
        runtime.after_launch(dev1)
        assert dev1.checks == 0
        graph.capture_end()
    assert capture.sources_of(graph) == {dev1} and not runtime.launched_while_capturing
    torch.cuda.synchronize(1)                   # the check after the capture: nothing
    graph.replay()
    assert runtime.pending_sources() == [dev1]


def test_a_capture_abandoned_without_its_end_is_forgotten_at_the_next_sync_point(
        monkeypatch, torch, dev1):
    live = set()                                # streams the (stand-in) driver says capture

    def is_capturing(stream, status):           # cuStreamIsCapturing(CUstream, status *)
        status._obj.value = 1 if stream.value in live else 0
        return 0

    monkeypatch.setattr(capture._Driver, "loaded", True)
    monkeypatch.setattr(capture._Driver, "is_capturing", is_capturing)
    stream = torch.cuda.Stream(device=1)
    torch.cuda.set_stream(stream)
    torch.cuda.CUDAGraph().capture_begin()
    live.add(stream.cuda_stream)
    dev1.fail()
    torch.cuda.synchronize(1)                   # the capture goes on: the check waits
    assert runtime.pending_sources() == [dev1]
    live.clear()            # an exception left the capture without capture_end(); CUDA ended it
    with pytest.raises(safekern.BoundsError):
        torch.cuda.synchronize(1)
    assert not runtime.capturing
