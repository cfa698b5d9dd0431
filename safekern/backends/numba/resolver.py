"""What the names a numba kernel calls mean: atomics, barriers, grid syncs, device functions.

The front end asks `classify_call(func, parsed)` for each call and rewrites by the answer:

- ("atomic", op), ("barrier", name): numba.cuda's own, found through the module they hang on;
- ("grid_sync",): `g.sync()` of a grid group (`g = cuda.cg.this_grid()`), made failure-safe
  like a block barrier (frontend/python/exits.py);
- ("device", fn): a checked device function (a checked kernel called from a kernel is compiled
  as a device function, as numba does);
- ("self",): the function calling itself (numba resolves recursion by the function's name);
- ("plain_device", text): an unchecked numba device function (a warning says so).

Checked functions are known by what they answer, not by their class (kernel.py imports this
module): `__safekern_device_function__()` is the checked device function a call of them
compiles (a device function itself; a kernel, its device-function form).

Device functions passed as arguments to a checked device function (`apply(a, i, op)` with `op`
a device function or `cuda.atomic.add`) are bound into a specialisation of the callee
(`bind_function_arguments`): the parameter becomes the function itself, so `op(...)` inside is
an ordinary, checked call.
"""
from __future__ import annotations

import ast

from numba import cuda

from ...frontend.python import INDEXED_ATOMICS
from . import library_functions
from .surface import SIMULATOR
from .unchecked import UncheckedFunction

BARRIERS = ("syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or")
_MISSING = object()


def is_checked(obj) -> bool:
    """A checked kernel or device function (anything answering the protocol)."""
    return hasattr(type(obj), "__safekern_device_function__")


def device_function_of(obj):
    """The checked device function a call of `obj` compiles, or None: `obj` itself for a
    checked device function, its device-function form for a checked kernel."""
    get = getattr(type(obj), "__safekern_device_function__", None)
    return get(obj) if get is not None else None


class NumbaResolver:
    def __init__(self):
        self._known = {}
        atomic = getattr(cuda, "atomic", None)
        if atomic is not None:
            for op in INDEXED_ATOMICS + ("compare_and_swap",):
                if hasattr(atomic, op):
                    self._known[id(getattr(atomic, op))] = ("atomic", op)
        for name in BARRIERS:
            if hasattr(cuda, name):
                self._known[id(getattr(cuda, name))] = ("barrier", name)
        self._grid_groups: dict = {}       # id(parsed) -> (parsed, names bound to this_grid())

    @staticmethod
    def resolve(expr, parsed):
        if isinstance(expr, ast.Name):
            return parsed.lookup(expr.id, _MISSING)
        if isinstance(expr, ast.Attribute):
            base = NumbaResolver.resolve(expr.value, parsed)
            if base is _MISSING:
                return _MISSING
            return getattr(base, expr.attr, _MISSING)
        return _MISSING

    def is_cuda_module(self, expr, parsed) -> bool:
        """Does `expr` name the numba.cuda module (for cuda.threadIdx.x, cuda.grid, ...)?"""
        return self.resolve(expr, parsed) is cuda

    # -- grid groups -------------------------------------------------------------------------
    def _is_this_grid(self, expr, parsed) -> bool:
        """`cuda.cg.this_grid()` (through whatever name the module has here)."""
        return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
                and expr.func.attr == "this_grid" and isinstance(expr.func.value, ast.Attribute)
                and expr.func.value.attr == "cg"
                and self.is_cuda_module(expr.func.value.value, parsed))

    def grid_group_names(self, parsed) -> frozenset:
        """Names the function binds to `cuda.cg.this_grid()`."""
        entry = self._grid_groups.get(id(parsed))
        if entry is None or entry[0] is not parsed:
            names = set()
            for node in ast.walk(parsed.tree):
                if isinstance(node, ast.Assign) and self._is_this_grid(node.value, parsed):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            entry = (parsed, frozenset(names))
            self._grid_groups[id(parsed)] = entry
        return entry[1]

    def _is_grid_sync(self, func, parsed) -> bool:
        if not (isinstance(func, ast.Attribute) and func.attr == "sync"):
            return False
        group = func.value
        return self._is_this_grid(group, parsed) or (
            isinstance(group, ast.Name) and group.id in self.grid_group_names(parsed))

    # -- calls -------------------------------------------------------------------------------
    def classify_call(self, func, parsed):
        if isinstance(func, ast.Attribute):
            # cuda.atomic.add / cuda.syncthreads / g.sync(), by the module they hang on
            inner = func.value
            if isinstance(inner, ast.Attribute) and inner.attr == "atomic" and \
                    self.is_cuda_module(inner.value, parsed) and func.attr in \
                    INDEXED_ATOMICS + ("compare_and_swap",):
                return ("atomic", func.attr)
            if func.attr in BARRIERS and self.is_cuda_module(inner, parsed):
                return ("barrier", func.attr)
            if self._is_grid_sync(func, parsed):
                return ("grid_sync",)
        obj = self.resolve(func, parsed)
        if isinstance(func, ast.Name) and func.id == parsed.name and (
                obj is _MISSING or (is_checked(obj) and obj.parsed is parsed)):
            # Not yet bound while its decorator runs, or bound to this very function.
            return ("self",)
        if obj is _MISSING:
            return None
        if is_checked(obj):
            return ("device", device_function_of(obj))
        library = library_functions.checked_copy(obj)
        if library is not None:     # numba's jit functions (numba.cuda.random's, the user's)
            return ("device", library)
        why = library_functions.refused(obj)
        if why is not None:
            return ("plain_device", ast.unparse(func), why)
        if isinstance(obj, AtomicRef):
            return ("atomic", obj.op)
        known = self._known.get(id(obj))
        if known is not None:
            return known
        if isinstance(obj, UncheckedFunction) or _is_numba_device_function(obj):
            return ("plain_device", ast.unparse(func))
        return None

    # -- functions as arguments ----------------------------------------------------------------
    def function_value(self, expr, parsed):
        """The function `expr` names when it is one a device function can only receive as a
        compile-time constant (a device function, a kernel, an atomic), else None."""
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Attribute) and \
                expr.value.attr == "atomic" and self.is_cuda_module(expr.value.value, parsed) \
                and expr.attr in INDEXED_ATOMICS + ("compare_and_swap",):
            # By its path (the simulator's atomics are bound methods of an object its kernels
            # see, not numba.cuda's): one stand-in per operation.
            return AtomicRef.of(expr.attr)
        obj = self.resolve(expr, parsed)
        if obj is _MISSING:
            return None
        if is_checked(obj) or isinstance(obj, UncheckedFunction) \
                or id(obj) in self._known or _is_numba_device_function(obj):
            return obj
        return None

    def bind_function_arguments(self, call: ast.Call, dev, parsed):
        """`dev`, or its specialisation with the function-valued arguments of `call` bound
        (those arguments are removed from `call`)."""
        params = [a.arg for a in dev.parsed.tree.args.args]
        bound = []
        keep_args = []
        for position, arg in enumerate(call.args):
            value = self.function_value(arg, parsed) if position < len(params) else None
            if value is None or isinstance(arg, ast.Starred):
                keep_args.append(arg)
            else:
                bound.append((params[position], value))
        keep_keywords = []
        for kw in call.keywords:
            value = self.function_value(kw.value, parsed) if kw.arg in params else None
            if value is None:
                keep_keywords.append(kw)
            else:
                bound.append((kw.arg, value))
        if not bound:
            return dev
        call.args, call.keywords = keep_args, keep_keywords
        return dev.bound(tuple(bound))


class AtomicRef:
    """`cuda.atomic.<op>` bound to a parameter (NumbaResolver.bind_function_arguments): the
    parameter's calls become checked atomics."""

    _all: dict = {}

    def __init__(self, op: str):
        self.op = op

    @classmethod
    def of(cls, op: str) -> "AtomicRef":
        return cls._all.setdefault(op, cls(op))

    def __repr__(self):
        return f"cuda.atomic.{self.op}"


def _is_numba_device_function(obj) -> bool:
    if SIMULATOR:
        return type(obj).__name__ == "FakeCUDAKernel" and getattr(obj, "_device", False)
    targetoptions = getattr(obj, "targetoptions", None)
    return isinstance(targetoptions, dict) and targetoptions.get("device", False)


_RESOLVER = None


def resolver() -> NumbaResolver:
    global _RESOLVER
    if _RESOLVER is None:
        _RESOLVER = NumbaResolver()
    return _RESOLVER


__all__ = ["NumbaResolver", "resolver", "BARRIERS", "is_checked", "device_function_of"]
