"""The numba backend's failure buffers: one per CUDA context, in runtime's one registry.

`current_source()` is the current context's `NumbaFailureSource` (made the first time, through
`runtime.failure_source("numba", ...)`); `fast_source()` is the same for the short launch path,
found with one driver call and a dict lookup. A failure read back from a device function names
the launched kernels that call it (`launched`, `callers_of`).
"""
from __future__ import annotations

import contextlib

import numpy as np
from numba import cuda

from ... import runtime
from ...failures import BUFFER_LEN
from .surface import SIMULATOR

# -- which kernel called the device function that failed -------------------------------------

# Kernels launched since the last check, in launch order (a failure inside a device function
# names the launched kernels that call it). Launches add themselves: `launched[kernel] = None`.
launched: dict = {}


def callers_of(err, kernels) -> tuple:
    """Names of the kernels among `kernels` that call (through any depth of device functions)
    the device function holding the failing access of `err`."""
    def holds(fn) -> bool:
        tree = fn.parsed.tree
        return (fn.__name__ == err.kernel and fn.parsed.filename == err.filename
                and err.lineno is not None
                and tree.lineno <= err.lineno <= (tree.end_lineno or tree.lineno))

    callers = []
    for kernel in kernels:
        if holds(kernel):
            continue                    # the access is in the kernel itself
        seen, todo = set(), list(kernel.rewritten.device_calls.values())
        while todo:
            fn = todo.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            if holds(fn):
                if kernel.__name__ not in callers:
                    callers.append(kernel.__name__)
                break
            todo += list(getattr(fn.rewritten, "device_calls", {}).values())
    return tuple(callers)


# -- failure buffers, one per CUDA context ------------------------------------------------------


class NumbaFailureSource(runtime.FailureSource):
    def __init__(self, context):
        super().__init__()
        self.context = context
        self.buffer = cuda.to_device(np.zeros(BUFFER_LEN, dtype=np.int64))
        # What launches pass: the address (a scalar argument costs numba less host time than
        # an array), or under the simulator the array itself.
        self.argument = self.buffer if SIMULATOR else int(self.buffer.device_ctypes_pointer.value)
        device = getattr(context, "device", None)
        self.device_id = getattr(device, "id", 0)
        self.name = f"CUDA device {self.device_id}" + (" (simulator)" if SIMULATOR else "")

    def check(self, *, synchronize: bool = True):
        err = super().check(synchronize=synchronize)
        kernels = list(launched)
        launched.clear()
        if err is not None and getattr(err, "kernel", None) and not err.called_from:
            # (a failure whose call chain was recorded up to its kernel names that one)
            callers = callers_of(err, kernels)
            if callers:
                err.called_from = callers
        return err

    def matches(self, target) -> bool:
        if target is None or target is self.context:
            return True
        device = getattr(target, "id", None)
        if isinstance(target, int):
            device = target
        if device is not None and device == self.device_id:
            return True
        if type(target).__name__.lower() == "stream":   # a numba stream (or the simulator's)
            ctx = getattr(target, "context", None)
            return SIMULATOR or ctx is None or ctx is self.context
        return False

    def synchronize(self) -> None:
        if SIMULATOR:
            return
        with cuda.gpus[self.device_id]:
            cuda.synchronize()

    def read(self) -> list[int]:
        with _device_scope(self.device_id):
            return [int(v) for v in self.buffer.copy_to_host()]

    def reset(self) -> None:
        with _device_scope(self.device_id):
            self.buffer.copy_to_device(np.zeros(BUFFER_LEN, dtype=np.int64))


def _device_scope(device_id):
    if SIMULATOR:
        return contextlib.nullcontext()
    return cuda.gpus[device_id]


# (context, source) of the last lookup: launches mostly hit the same context. One tuple,
# replaced whole, so a thread never sees one context with another's source.
_last = (object(), None)


def current_source() -> NumbaFailureSource:
    """The current CUDA context's failure source (the simulator has one device, one buffer)."""
    global _last
    # The simulator makes a new context object per call.
    context = cuda.current_context() if not SIMULATOR else None
    last = _last
    if context is last[0]:
        return last[1]
    # (A context that was destroyed and whose id was reused gets a new buffer.)
    source = runtime.failure_source("numba", id(context), lambda: NumbaFailureSource(context),
                                    current=lambda s: s.context is context)
    _last = (context, source)
    return source


class _Driver:
    """The CUDA driver's cuCtxGetCurrent, imported on first use (not under the simulator)."""

    ctx_get_current = None
    loaded = False

    @classmethod
    def load(cls) -> None:
        if cls.loaded:
            return
        cls.loaded = True
        try:
            from cuda.bindings import driver as cudrv

            cls.ctx_get_current = cudrv.cuCtxGetCurrent
        except ImportError:      # pragma: no cover
            cls.ctx_get_current = None


_by_handle: dict = {}


def fast_source() -> NumbaFailureSource:
    """The current context's failure source: one driver call and a dict lookup, or
    current_source() (which makes a context current if none is). The short launch path loads
    the driver first (load_driver)."""
    get = _Driver.ctx_get_current
    if get is not None:
        err, ctx = get()
        if not err:
            source = _by_handle.get(int(ctx))
            if source is not None and source.context.device.primary_context is source.context:
                return source
    source = current_source()
    _by_handle[int(source.context.handle)] = source
    return source


load_driver = _Driver.load


def _plain_sync(target=None):
    if not SIMULATOR:
        cuda.synchronize()


runtime.register_plain_sync(_plain_sync)

__all__ = ["NumbaFailureSource", "current_source", "fast_source", "load_driver", "launched",
           "callers_of"]
