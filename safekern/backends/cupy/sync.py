"""CuPy's synchronisation points, as safekern sync points (see safekern/sync_points.py).

Wrapped when the first checked CuPy module is loaded (`install()`), and for checked numba
kernels on CuPy arrays once CuPy is imported (backends.watch_libraries); each checks one
device:
- `cupy.ndarray.get()` (blocking form)             the array's device; also what calls it:
                                                    `.tolist()`, `.item()`, `float(a)`, ...
- `cupy.asnumpy(a)` (blocking form)                a's device
- `cupy.cuda.Stream.synchronize()`                 the stream's device (the current device for
  (every stream class: Stream.null, ptds, external) streams that carry none, device_id -1)
- `cupy.cuda.Device.synchronize()`                 that device
- `cupy.cuda.Event.synchronize()`                  the current device
While a CUDA stream capture is in progress (graphs.py) sync points raise nothing: the check would
synchronise the device, which ends the capture; the failure waits for the next one.

How each is wrapped (CuPy 13 and 14):
- `ndarray.get` is a cpdef method of the Cython base `_ndarray_base`, which refuses setattr; the
  wrapper is set on the Python class `cupy.ndarray` (every array CuPy makes is one), so calls
  from Python and CuPy's own calls through Cython's override dispatch reach it; uninstall
  deletes it again. Users get the same types as before.
- `Stream.synchronize` is defined on the Python class `cupy.cuda.stream._BaseStream`, `Event`
  and `asnumpy` are plain Python: wrapped where they are defined.
- `Device` is a Cython cdef class: its `synchronize` is replaced in the type's own dict (see
  sync_points._set). CuPy's Cython code that calls it directly on a typed Device skips the
  wrapper; user code and Python code do not.

`get(blocking=False)`, `asnumpy(..., blocking=False)` and copies on a stream do not wait: they
raise nothing, and the `synchronize()` that completes them does. The check after a sync point
synchronises the whole device (the failure buffer is the device's), so while a checked launch
is pending, synchronising one stream also waits for the device's other streams.

CuPy is imported only by `hooks()`: importing this module needs no GPU.
"""
from __future__ import annotations

import sys

from ... import sync_points
from ...sync_points import NOT_A_SYNC_POINT, Hook

BACKEND = "cupy"


def _current_device() -> int:
    import cupy

    return int(cupy.cuda.runtime.getDevice())


def _array_get(args, kwargs):
    """ndarray.get(self, stream=None, order='C', out=None, blocking=True); Cython's override
    dispatch passes every argument by position."""
    blocking = kwargs.get("blocking", args[4] if len(args) > 4 else True)
    return args[0].device.id if blocking else NOT_A_SYNC_POINT


def _asnumpy(args, kwargs):
    """asnumpy(a, stream=None, order='C', out=None, *, blocking=True): a host array or list
    is returned as it is, without waiting."""
    import cupy

    a = args[0] if args else kwargs.get("a")
    if not kwargs.get("blocking", True):
        return NOT_A_SYNC_POINT
    if isinstance(a, cupy.ndarray):
        return a.device.id
    if hasattr(a, "__cuda_array_interface__"):
        return _current_device()
    return NOT_A_SYNC_POINT


def stream_device(stream) -> int:
    """The device a stream belongs to; -1 (Stream.null, Stream.ptds, external streams) means
    the current device, as CuPy reads it."""
    device = int(getattr(stream, "device_id", -1))
    return device if device >= 0 else _current_device()


def _stream(args, kwargs):
    return stream_device(args[0])


def _device(args, kwargs):
    return int(args[0].id)


def _event(args, kwargs):
    return _current_device()


def stream_class():
    """The class that defines synchronize() for every CuPy stream."""
    import cupy

    base = getattr(cupy.cuda.stream, "_BaseStream", None)
    return base if base is not None and "synchronize" in base.__dict__ else cupy.cuda.Stream


def hooks() -> list[Hook]:
    import cupy

    return [Hook(cupy.ndarray, "get", _array_get),
            Hook(cupy, "asnumpy", _asnumpy),
            Hook(stream_class(), "synchronize", _stream),
            Hook(cupy.cuda.Device, "synchronize", _device),
            Hook(cupy.cuda.Event, "synchronize", _event)]


def install() -> None:
    """Wrap CuPy's sync points (once; nothing with SAFEKERN_SYNC_POINTS=0), and those of
    PyTorch and numba-cuda once they are imported (CuPy kernels run on torch tensors and numba's
    device arrays too: backends.watch_libraries)."""
    if not sync_points.is_installed(BACKEND):
        sync_points.install(BACKEND, hooks())
    from .. import watch_libraries

    watch_libraries()


def install_if_imported() -> bool:
    """install() if the user has imported CuPy: True then (with SAFEKERN_SYNC_POINTS=0 the
    sync points stay out; the next watch tries again)."""
    cupy = sys.modules.get("cupy")
    if cupy is None or not hasattr(cupy, "ndarray") or not hasattr(cupy, "cuda"):
        return False        # not imported (or still importing)
    install()
    return True


__all__ = ["install", "install_if_imported", "hooks", "stream_device", "stream_class",
           "BACKEND"]
