"""Plain launches: numba's own kernel for launches that can record no failure.

A launch whose kernel (the checked kernel, or the launch variant its predicates chose) holds no
check at all -- every access proven statically or by the predicates that hold, no assert,
raise or division check, every checked device function it calls check-free too -- cannot
record a failure. It still tests, first, whether a failure is pending (the prelude), so that it
does not act on what a failed kernel left; but when the host knows that nothing can be pending
on the device (no launch that can fail since the last check of its buffer, which synchronised
the device: `FailureSource.dirty` is false), that test is void too (Futhark's "nothing can be
pending" argument). Such a launch runs numba's own kernel of the user's function: the code
`numba.cuda.jit` makes, with no hidden argument, no prelude, numba's debug information
(SAFEKERN_PLAIN_LAUNCHES=0: never).

`check_free(rewritten)` (dispatch.py, which chooses plain launches) says whether a rewrite holds
no check; `PlainBuild` is the Build of the plain kernel (what the kernel cache keys on, what
numba compiles): the user's function as written, with the checked functions it calls swapped for numba's own builds of them (they are
check-free, so nothing is lost).
"""
from __future__ import annotations

import ast
import types as pytypes
import warnings

from numba import cuda
from numba.core.errors import NumbaError as _CoreNumbaError
from numba.cuda.core.errors import NumbaError

from ...errors import UncheckedWarning
from ...frontend.python.pipeline import RewrittenFunction
from .build import DerivedBuild, supported_options
from .keys import code_names
from .options import quiet_config_warnings
from .resolver import device_function_of
from .surface import SIMULATOR, numba_errors_in_user_terms
from .unchecked import UncheckedFunction

_EMPTY = object()


def _cell_value(cell, empty=None):
    try:
        return cell.cell_contents
    except ValueError:           # an empty cell (a name the enclosing function binds later)
        return empty


def simulator_runs(py_func) -> bool:
    """The simulator runs numba's own kernel of `py_func` as safekern's: it swaps its fake
    `cuda` module in for the function's globals only, so not a function whose closure holds a
    module (`from numba import cuda` in the enclosing function). On a GPU: always."""
    if not SIMULATOR:
        return True
    return not any(isinstance(_cell_value(c), pytypes.ModuleType)
                   for c in (py_func.__closure__ or ()))


#: The exceptions of numba's compilation (typing, lowering): raised before anything runs.
COMPILE_ERRORS = (_CoreNumbaError, NumbaError)


class _PlainRewrite(RewrittenFunction):
    """The user's function as written, as the cache key and the stored rewrite see it."""

    @property
    def source(self) -> str:
        return "# numba's own kernel (safekern plain launch)\n" + ast.unparse(self.tree)


class PlainUnavailable(NumbaError):
    """numba's own build of a function is being made already (recursion with signatures,
    which numba compiles at once): not available; the value stays, and a compile that needs it
    fails, which keeps that launch on the checked kernel (launching.py)."""


def _numba_own(value):
    """What numba's own kernel of the function calls where the user's names a safekern
    function: numba's build of its Python function (checked device functions have
    `plain_dispatcher()`; a kernel called as a device function, its device function's)."""
    if isinstance(value, UncheckedFunction):
        return value.numba_dispatcher()
    dev = device_function_of(value)
    if dev is None:
        return value
    try:
        return dev.plain_dispatcher()
    except PlainUnavailable:
        return value


def plain_function(py_func, deferred: bool = False):
    """`py_func` with the safekern functions among its globals and closure swapped for
    numba's own builds (a new function object; the user's is untouched). With `deferred`,
    (function, swap): the swap is made by calling `swap()` -- after the caller has made its own
    build known, so that recursion through the callees finds it."""
    scope = dict(py_func.__globals__)
    closure = py_func.__closure__
    cells = None
    if closure:                          # (an empty cell stays what it is)
        cells = tuple(cell if _cell_value(cell, _EMPTY) is _EMPTY
                      else pytypes.CellType(cell.cell_contents) for cell in closure)
    fn = pytypes.FunctionType(py_func.__code__, scope, py_func.__name__, py_func.__defaults__,
                              cells)
    fn.__kwdefaults__ = py_func.__kwdefaults__
    fn.__qualname__ = py_func.__qualname__
    fn.__doc__ = py_func.__doc__
    fn.__module__ = py_func.__module__

    def swap():
        for name in code_names(py_func.__code__):
            if name in scope:
                scope[name] = _numba_own(scope[name])
        for cell, original in zip(cells or (), closure or ()):
            if cell is not original:
                cell.cell_contents = _numba_own(cell.cell_contents)

    if deferred:
        return fn, swap
    swap()
    return fn


class PlainBuild(DerivedBuild):
    """The build of a kernel's plain form (module doc): numba's jit of the user's function with
    the kernel's options and signatures, no hidden parameter."""

    hidden = False

    def rewrite(self, launch_subset=None):
        return self.final_rewrite()

    def final_rewrite(self):
        with self.lock:
            if self._final is None:
                main = self.main.final_rewrite()      # (the main's scope refreshed first)
                self._final = _PlainRewrite(parsed=self.parsed,
                                            tree=ast.Module([self.parsed.tree], []),
                                            has_barriers=main.has_barriers)
            return self._final

    def compilable_rewrite(self):
        return self.final_rewrite()

    def compile(self):
        """numba's dispatcher of the user's function (module doc)."""
        options = supported_options(self.options)
        if options.get("extensions"):
            options["extensions"] = list(options["extensions"])
        # With cache=True: numba's own cache of the user's function, the same files and keys
        # as plain numba's (the checked builds' keys carry a tag of their own: disk_cache.py).
        with warnings.catch_warnings():
            # Its callees' checks are proven too (check_free), for these calls: a callee
            # proven only specialised for them (specialise.py) is no unchecked call here.
            warnings.simplefilter("ignore", UncheckedWarning)
            fn = plain_function(self.py_func)
        with quiet_config_warnings(), numba_errors_in_user_terms():
            if self.sigs is not None and not SIMULATOR:
                one = len(self.sigs) == 1 and self.specialized
                return cuda.jit(self.sigs[0] if one else list(self.sigs), **options)(fn)
            return cuda.jit(**options)(fn)


__all__ = ["plain_function", "simulator_runs", "PlainBuild",
           "PlainUnavailable", "COMPILE_ERRORS"]

