"""Kernels safekern cannot check: no source (built by `exec`, typed at a prompt).

safekern checks a kernel by rewriting its source; when `inspect` cannot find it there is
nothing to rewrite (numba itself compiles from bytecode). Such a function is compiled by
numba's own jit, as it is, behind the same surface as a checked one, with one
`safekern.UncheckedWarning` naming it and why; `check_report()` says it is unchecked. A checked
kernel may call it like any plain numba device function.
"""
from __future__ import annotations

import warnings

from numba import cuda

from .._stack import user_stacklevel
from ..errors import UncheckedWarning


class UncheckedFunction:
    """numba's dispatcher for a function safekern could not check, with safekern's surface."""

    def __init__(self, pyfunc, sigs, options, device: bool, reason: str, specialized=False):
        self.py_func = pyfunc
        self.__wrapped__ = pyfunc
        self.__name__ = getattr(pyfunc, "__name__", "kernel")
        self.__qualname__ = getattr(pyfunc, "__qualname__", self.__name__)
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self.__module__ = getattr(pyfunc, "__module__", None)
        self.device = device
        self.reason = reason
        if sigs is None:
            self._numba = cuda.jit(device=device, **options)(pyfunc)
        else:
            self._numba = cuda.jit(sigs if not specialized else sigs[0], device=device,
                                   **options)(pyfunc)

    def check_report(self) -> list[dict]:
        code = getattr(self.py_func, "__code__", None)
        return [{"line": getattr(code, "co_firstlineno", None), "kind": "function",
                 "array": None, "status": "unchecked", "reason": f"no source: {self.reason}",
                 "code": None}]

    @property
    def rewritten_source(self):
        return None

    def __getitem__(self, launch_config):
        return self._numba[launch_config]

    def __call__(self, *args, **kwargs):
        return self._numba(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._numba, name)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<safekern unchecked {kind} {self.__qualname__!r} (no source)>"


def unchecked(pyfunc, sigs, options, device: bool, reason: str, specialized=False):
    """numba's jit of `pyfunc`, with one UncheckedWarning saying why it is not checked."""
    name = getattr(pyfunc, "__qualname__", getattr(pyfunc, "__name__", repr(pyfunc)))
    kind = "device function" if device else "kernel"
    warnings.warn(UncheckedWarning(
        f"safekern: {kind} {name!r} runs unchecked: its source cannot be found ({reason}); "
        "numba compiles it from bytecode. Define it in a file to have its accesses checked."),
        stacklevel=user_stacklevel())
    return UncheckedFunction(pyfunc, sigs, options, device, reason, specialized)


__all__ = ["UncheckedFunction", "unchecked"]
