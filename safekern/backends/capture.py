"""CUDA stream capture (CUDA graphs), for every library that captures: which failure buffers a
graph's replays write, and the host work a capture in progress allows.

A checked launch into a capturing stream runs nothing: it is recorded in that capture
(`launched`), not marked pending. When the capture ends, the graph keeps the failure sources of
the launches it captured (`ended`), and each replay marks them pending (`replayed`), so the next
sync point after a replay checks their buffers. The captured launch keeps what the launch
computed on the host -- its arguments, the failure buffer's address, the launch variant chosen
for those arguments -- and every replay runs it with exactly those, so a variant proven for the
launch is right for every replay; after a failure is raised the buffer is reset in place and the
next replay runs normally.

The libraries' capture calls are hooked (backends/cupy/graphs.py, backends/torch/graphs.py);
`runtime.capturing` holds the streams being captured, so that sync points wait meanwhile (a check
synchronises the device). Graphs are known by `id()`: CuPy's Graph takes no weak reference, and
a new graph that reuses an id is registered again when its capture ends. A replay of a graph
whose capture safekern did not see end marks every source ever captured pending.

A backend that cannot tell which stream a launch went to (numba's launch path) calls
`runtime.after_launch` as always: the source is marked pending (the check after the capture finds
nothing) and, launched while a capture was open, kept by the graph too (`ended`) -- a launch on
another stream meanwhile costs its replays one needless check, never a missed failure.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import sys
import threading

from .. import runtime

_lock = threading.Lock()
_open: dict[int, set] = {}         # stream handle -> sources of the launches captured into it
_graphs: dict[int, frozenset] = {}  # id(graph) -> sources its replays write
_seen: set = set()                  # every source captured so far


def begun(stream: int) -> None:
    """A capture began on `stream` (a cudaStream_t as an int)."""
    with _lock:
        _open.setdefault(int(stream), set())
        runtime.capturing.add(int(stream))


def launched(source, stream: int) -> None:
    """A checked launch writing `source`'s buffer was captured into `stream`'s capture."""
    with _lock:
        _open.setdefault(int(stream), set()).add(source)
        _seen.add(source)
        runtime.capturing.add(int(stream))


def ended(stream: int, graph) -> None:
    """The capture on `stream` ended; `graph` is what it made (None: the capture failed)."""
    with _lock:
        sources = _open.pop(int(stream), set()) | runtime.launched_while_capturing
        _seen.update(sources)
        runtime.capturing.discard(int(stream))
        if not runtime.capturing:
            runtime.launched_while_capturing.clear()
        if graph is not None:
            _graphs[id(graph)] = frozenset(sources)


def sources_of(graph) -> frozenset:
    """The failure sources a replay of `graph` may write."""
    with _lock:
        found = _graphs.get(id(graph))
        return found if found is not None else frozenset(_seen)


def replayed(graph, stream: int | None = None) -> None:
    """`graph` was launched on `stream` (given only while some capture is in progress): its
    sources are pending, or, launched into a capture, part of that capture."""
    sources = sources_of(graph)
    if not sources:
        return
    if stream is not None:
        with _lock:
            into = _open.get(int(stream))
            if into is not None:
                into.update(sources)
                return
    for source in sources:
        runtime.after_launch(source)


def is_open(stream: int) -> bool:
    return int(stream) in _open


def reset() -> None:
    """Forget every capture and graph (tests)."""
    with _lock:
        _open.clear()
        _graphs.clear()
        _seen.clear()
        runtime.capturing.clear()
        runtime.launched_while_capturing.clear()


# -- host work during a capture ------------------------------------------------------------------

_RELAXED = 2        # CU_STREAM_CAPTURE_MODE_RELAXED


class _Driver:
    """The two driver calls used here, from libcuda through ctypes (None without a driver)."""

    exchange = None         # cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *)
    is_capturing = None     # cuStreamIsCapturing(CUstream, CUstreamCaptureStatus *)
    loaded = False

    @classmethod
    def load(cls) -> None:
        if cls.loaded:
            return
        cls.loaded = True
        names = ["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1",
                                                                ctypes.util.find_library("cuda")]
        for name in filter(None, names):
            try:
                lib = ctypes.CDLL(name)
                exchange, is_capturing = lib.cuThreadExchangeStreamCaptureMode, \
                    lib.cuStreamIsCapturing
            except (OSError, AttributeError):
                continue
            exchange.argtypes = [ctypes.POINTER(ctypes.c_int)]
            is_capturing.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
            exchange.restype = is_capturing.restype = ctypes.c_int
            cls.exchange, cls.is_capturing = exchange, is_capturing
            return

    @classmethod
    def get(cls):
        cls.load()
        return cls.exchange


_INVALID_HANDLE = 400       # CUDA_ERROR_INVALID_HANDLE: a stream destroyed since


def _stream_capturing(stream: int) -> bool:
    """Whether the driver says `stream` is still capturing (an error other than a stale
    handle: assume it is -- a check then would end the capture)."""
    _Driver.load()
    status = ctypes.c_int(0)
    err = _Driver.is_capturing(ctypes.c_void_p(stream), ctypes.byref(status))
    return status.value != 0 if err == 0 else err != _INVALID_HANDLE


def in_progress() -> bool:
    """Whether a capture safekern knows of is still in progress (runtime asks before a sync
    point checks). A capture the driver says is over although safekern did not see it end --
    abandoned after an exception between begin_capture() and end_capture() -- is forgotten
    here, so that sync points do not stay silent for the rest of the process."""
    _Driver.load()
    if _Driver.is_capturing is not None:
        for stream in list(_open):
            if not _stream_capturing(stream):
                ended(stream, None)
    return bool(runtime.capturing)


runtime.capture_probe = in_progress


@contextlib.contextmanager
def host_work_allowed():
    """Let this thread load modules and allocate memory (the first launch of a kernel, a new
    launch variant) while a capture in the global mode -- PyTorch's default -- is in progress:
    the thread's capture mode is relaxed meanwhile, as CUDA advises libraries to do. Costs two
    driver calls: for the slow paths only."""
    exchange = _Driver.get()
    mode = ctypes.c_int(_RELAXED)
    if exchange is None or exchange(ctypes.byref(mode)) != 0:
        yield
        return
    try:
        yield
    finally:
        exchange(ctypes.byref(mode))


__all__ = ["begun", "launched", "ended", "replayed", "sources_of", "is_open", "reset",
           "in_progress", "host_work_allowed"]
