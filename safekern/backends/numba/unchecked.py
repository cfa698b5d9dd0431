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

from ..._stack import user_stacklevel
from ...errors import UncheckedWarning
from ...report import CheckReport, ReportEntry, Status
from .options import quiet_config_warnings
from .pickling import reduce_function


def take_identity(obj, pyfunc) -> None:
    """`obj` (a checked or unchecked function) stands for the user's `pyfunc`: inspect.getsource,
    inspect.signature and functools' helpers follow `__wrapped__`; numba's own code reads
    `__code__` and `__defaults__` of a dispatcher it is handed (compile_subroutine, jit of a
    jitted function), as of a function."""
    obj.py_func = pyfunc
    obj.__wrapped__ = pyfunc
    obj.__name__ = getattr(pyfunc, "__name__", "kernel")
    obj.__qualname__ = getattr(pyfunc, "__qualname__", obj.__name__)
    obj.__doc__ = getattr(pyfunc, "__doc__", None)
    obj.__module__ = getattr(pyfunc, "__module__", None)
    for name in ("__code__", "__defaults__"):
        if hasattr(pyfunc, name):
            setattr(obj, name, getattr(pyfunc, name))


class UncheckedFunction:
    """numba's dispatcher for a function safekern could not check, with safekern's surface.

    `rebuild_as`: the checked class it was meant to be (kernel.py's), which unpickling tries
    again (the source may be found there)."""

    def __init__(self, pyfunc, sigs, options, device: bool, reason: str, specialized=False,
                 rebuild_as=None):
        take_identity(self, pyfunc)
        self.device = device
        self.reason = reason
        self._pickled = (sigs, dict(options), specialized)
        self._rebuild_as = rebuild_as
        with quiet_config_warnings():       # safekern.jit gave numba's warnings already
            if sigs is None:
                self._numba = cuda.jit(device=device, **options)(pyfunc)
            else:
                self._numba = cuda.jit(sigs if not specialized else sigs[0], device=device,
                                       **options)(pyfunc)

    def numba_dispatcher(self):
        """numba's dispatcher of the function (what a checked caller's build calls)."""
        return self._numba

    def __reduce__(self):
        sigs, options, specialized = self._pickled
        return reduce_function(self._rebuild_as or type(self), self.py_func, sigs, options,
                               self.device, specialized)

    @classmethod
    def _rebuild(cls, pyfunc, sigs, options, device, specialized):
        return unchecked(pyfunc, sigs, dict(options), device, "no source", specialized)

    def check_report(self) -> CheckReport:
        code = getattr(self.py_func, "__code__", None)
        entry = ReportEntry(self.__name__, getattr(code, "co_firstlineno", None) or 0, 0, "",
                            "", Status.UNCHECKED, f"no source: {self.reason}", kind="function")
        return CheckReport([entry], filename=getattr(code, "co_filename", "") or "")

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


def unchecked(pyfunc, sigs, options, device: bool, reason: str, specialized=False,
              rebuild_as=None):
    """numba's jit of `pyfunc`, with one UncheckedWarning saying why it is not checked."""
    name = getattr(pyfunc, "__qualname__", getattr(pyfunc, "__name__", repr(pyfunc)))
    kind = "device function" if device else "kernel"
    warnings.warn(UncheckedWarning(
        f"safekern: {kind} {name!r} runs unchecked: its source cannot be found ({reason}); "
        "numba compiles it from bytecode. Define it in a file to have its accesses checked."),
        stacklevel=user_stacklevel())
    return UncheckedFunction(pyfunc, sigs, options, device, reason, specialized, rebuild_as)


def plain_build(py_func, name: str, sigs, options: dict, simulator: bool, warn: bool = True):
    """numba's own device function of a checked device function's Python function, for callers
    safekern does not rewrite (numba's vectorize, `cuda.compile` of a plain function, a plain
    numba kernel, a plain launch: plain.py): they pass no failure buffer, so what it does there
    is unchecked (said once, with an UncheckedWarning, unless `warn` is false: a function with
    no check left)."""
    if warn:
        warnings.warn(UncheckedWarning(
            f"safekern: device function {name!r} is called from code safekern does "
            "not rewrite (numba's own jit, vectorize or cuda.compile of a plain function): "
            "those calls run numba's unchecked build"), stacklevel=user_stacklevel())
    options = {k: v for k, v in options.items() if k != "link"}
    with quiet_config_warnings():
        if sigs is None or simulator:
            return cuda.jit(device=True, **options)(py_func)
        return cuda.jit(sigs[0] if len(sigs) == 1 else sigs, device=True, **options)(py_func)


__all__ = ["UncheckedFunction", "unchecked", "plain_build"]
