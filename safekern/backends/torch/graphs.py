"""CUDA graphs of PyTorch (`torch.cuda.graph`, `torch.cuda.CUDAGraph`, make_graphed_callables):
checked kernels captured on torch's stream, failures of replays raised at the next sync point
(the bookkeeping is backends/capture.py).

Hooked with PyTorch's sync points (sync.py), whenever checks are on; they mark work pending and
are not sync points themselves:
- `CUDAGraph.capture_begin()` / `capture_end()`   a capture on torch's current stream begins /
                                                   ends; the graph keeps the failure buffers of
                                                   the checked launches captured into it
- `CUDAGraph.replay()`                            a replay: those buffers are pending
A checked CuPy kernel is captured when it is launched on torch's capture stream
(`stream=cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)`).
"""
from __future__ import annotations

from ... import runtime, sync_points
from ...sync_points import Hook
from .. import capture

BACKEND = "torch-graphs"
_streams: dict[int, int] = {}       # id(graph) -> the stream its capture runs on


def _current_stream() -> int:
    import torch

    return int(torch.cuda.current_stream().cuda_stream)


def _begin(original):
    def capture_begin(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        stream = _streams[id(self)] = _current_stream()
        capture.begun(stream)
        return result
    return capture_begin


def _end(original):
    def capture_end(self, *args, **kwargs):
        stream = _streams.pop(id(self), None)
        if stream is None:                  # a capture begun before the hooks went in
            stream = _current_stream()
        ended = False
        try:
            result = original(self, *args, **kwargs)
            ended = True
            return result
        finally:
            capture.ended(stream, self if ended else None)
    return capture_end


def _replay(original):
    def replay(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        capture.replayed(self, _current_stream() if runtime.capturing else None)
        return result
    return replay


def hooks() -> list[Hook]:
    import torch

    graph = torch.cuda.CUDAGraph
    return [Hook(graph, "capture_begin", wrap=_begin), Hook(graph, "capture_end", wrap=_end),
            Hook(graph, "replay", wrap=_replay)]


def install() -> None:
    """Hook torch's capture and replay (once; nothing with SAFEKERN_CHECKS=0). A capture in
    progress on torch's current stream is taken up."""
    import torch

    if sync_points.is_installed(BACKEND) or not sync_points.install(BACKEND, hooks()):
        return
    try:
        if torch.cuda.is_initialized() and torch.cuda.is_current_stream_capturing():
            capture.begun(_current_stream())
    except Exception:   # noqa: BLE001 -- no device: nothing is capturing
        pass


__all__ = ["install", "hooks", "BACKEND"]
