"""CuPy's exception types for the errors of safekern.cupy, so that a drop-in raises what CuPy
raises.

    try:
        mod.get_function("k")
    except cupy.cuda.compiler.CompileException: ...     # catches it
    except safekern.CompilationError: ...                # catches the same error

`cupy_flavoured(err)` turns a `safekern.CompilationError` (or a subclass: UnsupportedError,
NvrtcError) into an instance of a class derived from both the error's own class and CuPy's
`CompileException`, built on first use: safekern's core never imports CuPy, and without CuPy
the error is returned unchanged. `missing_function(module, name, hint)` raises CuPy's
`CUDADriverError` (CUDA_ERROR_NOT_FOUND) for a kernel name the module does not hold, as
`cupy.RawModule.get_function` does, with safekern's hint as a note.
"""
from __future__ import annotations

from ...errors import CompilationError

_classes: dict = {}


def _compile_exception():
    try:
        from cupy.cuda.compiler import CompileException
    except Exception:       # no CuPy (or a stand-in without its compiler module)
        return None
    return CompileException


def cupy_class(cls: type):
    """`cls` (a CompilationError class) combined with CuPy's CompileException; None without
    CuPy."""
    base = _compile_exception()
    if base is None or issubclass(cls, base):
        return None if base is None else cls
    made = _classes.get(cls)
    if made is None:
        # CompileException first in the bases: its __init__ (msg, source, name, options) is
        # skipped; CompilationError.__init__ then reaches Exception.__init__ through the MRO.
        made = _classes[cls] = type(cls.__name__, (base, cls), {
            "__module__": "safekern", "_safekern_class": cls, "__init__": _init, "__reduce__": _reduce,
            "__str__": cls.__str__, "__repr__": _repr, "get_message": cls.__str__,
            "__doc__": f"{cls.__doc__}\n\nAlso cupy.cuda.compiler.CompileException."})
    return made


def _init(self, problem, *, source="", name="", options=(), backend="nvrtc", **kw):
    # CuPy's attributes (CompileException.dump() and user code read them).
    self._msg = None
    self.source = source
    self.name = name
    self.options = tuple(options)
    self.backend = backend
    CompilationError.__init__(self, problem, **kw)
    self._msg = str(self)


def _repr(self):
    return f"{type(self).__name__}({self.problem!r})"


def _reduce(self):
    state = {k: getattr(self, k) for k in ("filename", "lineno", "source_line", "col",
                                          "end_col", "kernel", "source", "name", "options",
                                          "backend")}
    return (_rebuild, (self._safekern_class, self.problem, state))


def _rebuild(cls, problem, state):
    made = cupy_class(cls)
    return (made or cls)(problem, **(state if made else {k: v for k, v in state.items()
                                                         if k not in _CUPY_FIELDS}))


_CUPY_FIELDS = ("source", "name", "options", "backend")


def cupy_flavoured(err: CompilationError, *, source: str = "", options=(),
                   backend: str = "nvrtc") -> CompilationError:
    """`err` as an instance of its class combined with CuPy's CompileException (the same
    message, location and notes); `err` itself without CuPy or when it already is one."""
    cls = cupy_class(type(err))
    if cls is None or isinstance(err, cls):
        return err
    made = cls(err.problem, filename=err.filename, lineno=err.lineno,
               source_line=err.source_line, col=err.col, end_col=err.end_col,
               kernel=err.kernel, source=source, name=err.filename or "", options=options,
               backend=backend)
    for attr in ("log", "diagnostics"):        # NvrtcError's
        if hasattr(err, attr):
            setattr(made, attr, getattr(err, attr))
    for note in getattr(err, "__notes__", ()):
        made.add_note(note)
    made.__cause__ = err.__cause__
    made.__suppress_context__ = True
    return made


def missing_function(module, name: str, hint: str):
    """Raise what CuPy raises for a kernel the module does not hold: the driver's own
    CUDADriverError (CUDA_ERROR_NOT_FOUND: named symbol not found), with safekern's hint."""
    try:
        module.get_function(name)
    except Exception as err:            # CUDADriverError: the name is not in the module
        err.add_note("safekern: " + hint)
        raise err from None
    # The driver found a symbol that is not one of the source's kernels (a name the rewrite
    # generated): still not a kernel of the user's.
    raise ValueError(hint)


__all__ = ["cupy_class", "cupy_flavoured", "missing_function"]
