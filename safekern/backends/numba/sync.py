"""numba-cuda's synchronisation points, as safekern sync points (see safekern/sync_points.py).

Wrapped when the first checked numba kernel or device function is decorated (and when a checked
CuPy module is loaded, if numba-cuda is imported: CuPy kernels run on numba's arrays too):
- `numba.cuda.synchronize()`                     the current context
- `DeviceNDArray.copy_to_host()` (blocking form;  the current context; `np.asarray(d)` and
  also records and mapped/managed arrays)         `copy_to_host(out)` go through it
- `d[i]` reading one element (no stream)         the current context (`d_sum[0]`: how a
                                                 reduction's result is often read)
- `Stream.synchronize()`                         that stream's context
- `Event.synchronize()`                          that event's context
The same calls of the CUDA simulator's classes are wrapped under NUMBA_ENABLE_CUDASIM=1. A
checked launch given host NumPy arrays (numba copies them back before it returns) is a sync point
too: the launch paths call `host_arrays_copied_back()`.

A copy given a stream (`copy_to_host(stream=s)`, or an array bound to a stream) does not wait: it
raises nothing, and the `s.synchronize()` that completes it does.
"""
from __future__ import annotations

import threading

import numpy as np
from numba import cuda

from ... import runtime, sync_points
from ...sync_points import NOT_A_SYNC_POINT, Hook
from .surface import SIMULATOR as _SIMULATOR


def _context(args, kwargs):
    # The simulator has one device and a new context object per call: every source matches.
    return None if _SIMULATOR else cuda.current_context()


def _blocking_copy(args, kwargs):
    """`copy_to_host(self, ary=None, stream=0)` waits unless a stream is given or bound."""
    array = args[0]
    stream = kwargs.get("stream", args[2] if len(args) > 2 else 0)
    if stream or getattr(array, "stream", 0):
        return NOT_A_SYNC_POINT
    return _context(args, kwargs)


def _element_read(args, kwargs):
    """`d[i]` (`_do_getitem(self, item, stream=0)`): an element read copies it to the host and
    waits unless a stream is given or bound; a view (or a record's) copies nothing."""
    array, item = args[0], args[1]
    stream = kwargs.get("stream", args[2] if len(args) > 2 else 0)
    if stream or getattr(array, "stream", 0) or array.dtype.names is not None:
        return NOT_A_SYNC_POINT
    try:
        view = array._dummy.__getitem__(item).is_array
    except Exception:            # noqa: BLE001 -- numba's own call raises its own error
        return NOT_A_SYNC_POINT
    return NOT_A_SYNC_POINT if view else _context(args, kwargs)


def _sim_element_read(args, kwargs):
    """The simulator's `d[i]` on the host: an element (not a view) is read from the host copy.
    A kernel's own reads (its threads are the simulator's BlockThreads) are no sync point."""
    if isinstance(threading.current_thread(), _block_thread()):
        return NOT_A_SYNC_POINT
    try:
        value = args[0]._ary[args[1]]
    except Exception:            # noqa: BLE001 -- the simulator's own call raises its error
        return NOT_A_SYNC_POINT
    return NOT_A_SYNC_POINT if isinstance(value, (np.ndarray, np.void)) else None


def _block_thread():
    from numba.cuda.simulator.kernel import BlockThread

    return BlockThread


_ARRAY_PROTOCOL = frozenset({"__array__", "__array_interface__", "__array_struct__"})


def _host_view(args, kwargs):
    """The simulator's arrays give NumPy their data through `__getattr__` (np.asarray(d)): the
    simulator is synchronous, so that is a completed copy back."""
    return None if args[1] in _ARRAY_PROTOCOL else NOT_A_SYNC_POINT


def _own(args, kwargs):
    return args[0]            # a stream: FailureSource.matches knows streams


def _event_context(args, kwargs):
    return None if _SIMULATOR else getattr(args[0], "context", None)


def _hooks() -> list[Hook]:
    if _SIMULATOR:
        from numba.cuda.simulator import api
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

        return [Hook(cuda, "synchronize", _context),
                Hook(FakeCUDAArray, "copy_to_host", _blocking_copy),
                Hook(FakeCUDAArray, "__getattr__", _host_view),
                Hook(FakeCUDAArray, "__getitem__", _sim_element_read),
                Hook(api.stream, "synchronize", _own),
                Hook(api.Event, "synchronize", _event_context)]
    from numba.cuda.cudadrv import driver
    from numba.cuda.cudadrv.devicearray import DeviceNDArray, DeviceNDArrayBase

    return [Hook(cuda, "synchronize", _context),
            Hook(DeviceNDArrayBase, "copy_to_host", _blocking_copy),
            Hook(DeviceNDArray, "_do_getitem", _element_read),
            Hook(driver.Stream, "synchronize", _own),
            Hook(driver.Event, "synchronize", _event_context)]


def install() -> None:
    """Wrap numba-cuda's sync points (once; nothing with SAFEKERN_SYNC_POINTS=0), and those of
    PyTorch and CuPy once they are imported (numba kernels run on torch tensors and CuPy arrays
    too: their users read results with `.cpu()`, `.get()`: backends.watch_libraries)."""
    if not sync_points.is_installed("numba"):
        sync_points.install("numba", _hooks())
    if not _SIMULATOR:
        from .. import watch_libraries

        watch_libraries()


def install_if_imported() -> bool:
    """install(): numba-cuda is imported (this module imports it). For backends.watch_libraries:
    CuPy kernels on numba's device arrays."""
    install()
    return True


def has_host_arrays(args) -> bool:
    """Does a launch with these arguments copy arrays back to the host before it returns?"""
    for arg in args:
        if isinstance(arg, np.ndarray) and not hasattr(arg, "__cuda_array_interface__"):
            return True
    return False


def host_arrays_copied_back() -> None:
    """A checked launch just copied host arrays back: the user holds results now."""
    runtime.sync_point(_context((), {}))


__all__ = ["install", "install_if_imported", "has_host_arrays", "host_arrays_copied_back"]
