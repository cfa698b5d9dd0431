"""CUDA graphs of CuPy: checked kernels captured on a CuPy stream, failures of replays raised at
the next sync point (the bookkeeping is backends/capture.py).

Hooked when the first checked CuPy module is loaded, whenever checks are on (these hooks mark
work pending; they are not sync points):
- `Stream.begin_capture()` / `end_capture()`   a capture on that stream begins / ends; the graph
  (every stream class: defined on _BaseStream)  keeps the failure buffers of its launches
- `cupy.cuda.Graph.launch(stream=None)`         a replay: those buffers are pending
A checked launch into a capturing stream (`after_launch`) is recorded in the capture, not marked
pending. Graph is a Cython cdef class: `launch` is replaced in its type's dict
(sync_points._set); CuPy's Cython code that launches a typed Graph directly skips the hook.
"""
from __future__ import annotations

from ... import runtime, sync_points
from ...sync_points import Hook
from .. import capture

BACKEND = "cupy-graphs"


def _stream_ptr(stream) -> int:
    import cupy

    return int((stream if stream is not None else cupy.cuda.get_current_stream()).ptr)


def _is_capturing(ptr: int) -> bool:
    import cupy

    try:
        return bool(cupy.cuda.runtime.streamIsCapturing(ptr))
    except Exception:       # the legacy stream while another stream captures: not this one
        return False


def after_launch(source, stream) -> None:
    """A checked launch on `stream` (None: CuPy's current stream) just returned: pending, or,
    into a stream being captured, part of that capture (nothing ran)."""
    if runtime.capturing:
        ptr = _stream_ptr(stream)
        if capture.is_open(ptr) or _is_capturing(ptr):
            capture.launched(source, ptr)
            return
    runtime.after_launch(source)


def _begin(original):
    def begin_capture(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        capture.begun(int(self.ptr))
        return result
    return begin_capture


def _end(original):
    def end_capture(self, *args, **kwargs):
        graph = None
        try:
            graph = original(self, *args, **kwargs)
            return graph
        finally:
            capture.ended(int(self.ptr), graph)
    return end_capture


def _launch(original):
    def launch(self, stream=None):
        result = original(self, stream)
        capture.replayed(self, _stream_ptr(stream) if runtime.capturing else None)
        return result
    return launch


def hooks() -> list[Hook]:
    from cupy.cuda import graph

    from .sync import stream_class

    return [Hook(stream_class(), "begin_capture", wrap=_begin),
            Hook(stream_class(), "end_capture", wrap=_end),
            Hook(graph.Graph, "launch", wrap=_launch)]


def install() -> None:
    """Hook CuPy's capture and replay (once; nothing with SAFEKERN_CHECKS=0). A capture that
    began before (the first checked launch of the process inside it) is taken up here."""
    if sync_points.is_installed(BACKEND) or not sync_points.install(BACKEND, hooks()):
        return
    try:
        ptr = _stream_ptr(None)
    except Exception:       # noqa: BLE001 -- no device: nothing is capturing
        return
    if ptr and _is_capturing(ptr):
        capture.begun(ptr)


__all__ = ["install", "hooks", "after_launch", "BACKEND"]
