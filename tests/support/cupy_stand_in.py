"""A stand-in `cupy` module with the calls safekern hooks as CuPy's sync points
(backends/cupy/sync.py), for tests/core/test_library_watch.py: CI has no CuPy. It has CuPy's
shapes where the hooks depend on them: `ndarray.get` (blocking unless blocking=False; the array's
`device.id`), `cupy.asnumpy`, `cuda.stream._BaseStream.synchronize` inherited by `cuda.Stream`,
`cuda.Device(i).synchronize`, `cuda.Event.synchronize`, `cuda.runtime.getDevice()`."""
from __future__ import annotations

import types


def make_cupy():
    cupy = types.ModuleType("cupy")
    cuda = types.ModuleType("cupy.cuda")
    stream_module = types.ModuleType("cupy.cuda.stream")
    runtime = types.ModuleType("cupy.cuda.runtime")
    cupy.cuda, cuda.stream, cuda.runtime = cuda, stream_module, runtime
    runtime.getDevice = lambda: 1

    class Device:
        def __init__(self, device_id=1):
            self.id = device_id

        def synchronize(self):
            return None

    class ndarray:
        def __init__(self, values, device_id=1):
            self.values = list(values)
            self.device = Device(device_id)

        def get(self, stream=None, order="C", out=None, blocking=True):
            return list(self.values)

    class _BaseStream:
        device_id = -1

        def synchronize(self):
            return None

    class Stream(_BaseStream):
        pass

    class Event:
        def synchronize(self):
            return None

    def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
        return a.get() if isinstance(a, ndarray) else a

    for made in (Device, ndarray, _BaseStream, Stream, Event, asnumpy):
        made.__qualname__ = made.__name__           # (as CuPy's own: what installed() shows)
    cupy.ndarray, cupy.asnumpy = ndarray, asnumpy
    cuda.Device, cuda.Stream, cuda.Event = Device, Stream, Event
    stream_module._BaseStream = _BaseStream
    return cupy
