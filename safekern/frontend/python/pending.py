"""Where a kernel tests for a failure pending from an earlier launch (a rewrite, no analysis).

The prelude reads the failure buffer's slot 0 and leaves when it is set. Tested at entry, that
global load sits in front of everything the thread does: in a kernel whose threads mostly read
one value and leave (a BFS step reads `frontier[u]` and most threads stop there), the thread's
own load waits behind it and the kernel's latency doubles. So the slot is read at entry, into
`_sk_pend`, and *tested* only where it must be: before the first statement that could do harm
on data an earlier, skipped launch left unwritten -- a store, an atomic, a loop (its bounds may
be garbage), a call, a barrier -- and before every `return` on the way, so that the thread
that counts skipped launches (thread 0 of block 0, `_sk_skip`) counts this one on every path.
The two loads are then in flight together.

What may run before the test: assignments to names, stores into the launch's own shared and
local arrays (nothing outside the launch sees them: a tiled kernel's first tile loads overlap
the read too), and `if`s of such statements, whose expressions only read checked or
proven-in-bounds elements (a failing check there cannot overwrite the pending failure: the
first failure's compare-and-swap on slot 0 keeps it), compute, and call the check helpers,
`cuda.grid`, `cuda.gridsize`, `cuda.shared.array`, `cuda.local.array`, numeric casts
(`float32(80.0)`), `len`, `min`, `max`, `abs`. A kernel with an
access left unchecked keeps the test at entry (its plain subscripts are not all proven), as
does one with grid syncs (exits.py's grid prelude).
"""
from __future__ import annotations

import ast
import builtins

from . import names
from .trees import walk

PEND = "_sk_pend"          # the failure buffer's slot 0, read at entry
_BUILTINS = (len, min, max, abs)
_HELPERS = (names.LOAD, names.LOADV, names.EXTENT)


def pending_read() -> ast.stmt:
    """`_sk_pend = _sk_fb[0]`: the load, issued at entry."""
    return ast.Assign([ast.Name(PEND, ast.Store())], ast.Subscript(
        ast.Name(names.FB, ast.Load()), ast.Constant(0), ast.Load()))


def _test() -> ast.stmt:
    skip = ast.Expr(ast.Call(ast.Name(names.SKIP, ast.Load()),
                             [ast.Name(names.FB, ast.Load())], []))
    pending = ast.Compare(ast.Name(PEND, ast.Load()), [ast.NotEq()], [ast.Constant(0)])
    return ast.If(test=pending, body=[skip, ast.Return(None)], orelse=[])


class PendingPlacer:
    """Puts the pending test as late as is harmless on every path (see module doc)."""

    def __init__(self, resolver, parsed):
        self.resolver = resolver
        self.parsed = parsed
        self.private: set = set()       # names bound once, to a shared or local array
        self._body: list = []
        self._once: set | None = None

    def place(self, body: list) -> list:
        self._body, self._once = body, None
        return self._block(body)

    @property
    def once(self) -> set:
        """The names the body binds once (none where a nested function or a global statement
        may bind more): asked only of a private array's binding, so found (one walk of the
        body) the first time one is met, if ever. The tests placed meanwhile bind nothing."""
        if self._once is None:
            stores: dict = {}           # name -> how many times it is bound
            nested = False
            for n in (n for stmt in self._body for n in walk(stmt)):     # (one walk for both)
                if isinstance(n, ast.Name):
                    if isinstance(n.ctx, (ast.Store, ast.Del)):
                        stores[n.id] = stores.get(n.id, 0) + 1
                elif isinstance(n, (ast.FunctionDef, ast.Lambda, ast.Global, ast.Nonlocal)):
                    nested = True
            self._once = set() if nested else {n for n, c in stores.items() if c == 1}
        return self._once

    def _block(self, stmts: list) -> list:
        out = []
        for pos, stmt in enumerate(stmts):
            if self._simple(stmt):
                out.append(stmt)
                continue
            if isinstance(stmt, ast.Return) and stmt.value is None:
                return out + [_test()] + stmts[pos:]
            if isinstance(stmt, ast.If) and self._harmless(stmt.test):
                if _exits(stmt.body) and not stmt.orelse and \
                        all(self._simple(s) for s in stmt.body[:-1]):
                    # an early exit: tested before its return, the other path goes on
                    stmt.body = stmt.body[:-1] + [_test(), stmt.body[-1]]
                    out.append(stmt)
                    continue
                if pos == len(stmts) - 1:
                    # the last statement: each branch tests on each of its paths
                    stmt.body = self._block(stmt.body)
                    stmt.orelse = self._block(stmt.orelse)
                    return out + [stmt]
            return out + [_test()] + stmts[pos:]
        return out + [_test()]

    def _simple(self, stmt) -> bool:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return True                                   # a docstring
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value                             # a store into a private array
            return isinstance(call.func, ast.Name) and call.func.id in (names.STORE,
                                                                        names.PUT) and \
                self._private(call.args[0]) and all(self._harmless(a) for a in call.args)
        if isinstance(stmt, ast.If):
            return self._harmless(stmt.test) and all(self._simple(s) for s in stmt.body) and \
                all(self._simple(s) for s in stmt.orelse)
        if not (isinstance(stmt, ast.Assign) and self._harmless(stmt.value)):
            return False
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
            target = stmt.targets[0]
            return self._private(target.value) and self._harmless(target.slice)
        if not all(isinstance(n, (ast.Name, ast.Tuple, ast.Store)) for t in stmt.targets
                   for n in walk(t)):
            return False
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and \
                self._allocation(stmt.value) and stmt.targets[0].id in self.once:
            self.private.add(stmt.targets[0].id)
        return True

    def _private(self, expr) -> bool:
        """A private array, or a row of one (`vec[k]` in `vec[k][0] = v`: a view into the
        same launch-local memory)."""
        if isinstance(expr, ast.Subscript):
            return self._private(expr.value) and self._harmless(expr.slice)
        return isinstance(expr, ast.Name) and expr.id in self.private

    def _allocation(self, expr) -> bool:
        """`cuda.shared.array(...)` or `cuda.local.array(...)`."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
            return False
        func = expr.func
        is_cuda = getattr(self.resolver, "is_cuda_module", None)
        return func.attr == "array" and isinstance(func.value, ast.Attribute) and \
            func.value.attr in ("shared", "local") and is_cuda is not None and \
            bool(is_cuda(func.value.value, self.parsed))

    def _harmless(self, expr) -> bool:
        for node in walk(expr):
            if isinstance(node, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield,
                                 ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
                return False
            if isinstance(node, ast.Call) and not self._harmless_call(node.func):
                return False
        return True

    def _harmless_call(self, func) -> bool:
        if isinstance(func, ast.Name) and (func.id in _HELPERS or
                                           func.id.startswith(names.DIVIDE)):
            return True
        if isinstance(func, ast.Attribute) and func.attr in ("grid", "gridsize"):
            is_cuda = getattr(self.resolver, "is_cuda_module", None)
            return is_cuda is not None and bool(is_cuda(func.value, self.parsed))
        if self._allocation(ast.Call(func, [], [])):
            return True
        resolve = getattr(self.resolver, "resolve", None)
        if resolve is None or not isinstance(func, (ast.Name, ast.Attribute)):
            return False
        obj = resolve(func, self.parsed)
        if isinstance(func, ast.Name) and any(obj is b for b in _BUILTINS):
            return getattr(builtins, func.id) is obj
        return _numeric_cast(obj)


def _numeric_cast(obj) -> bool:
    """A numba number type (`float32`, `types.int64`) or a NumPy scalar class: a cast."""
    cls = type(obj)
    if cls.__name__ in ("Integer", "Float") and cls.__module__.startswith("numba"):
        return True
    if isinstance(obj, type):
        import numpy as np

        return issubclass(obj, np.number)
    return False


def _exits(body) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return) and body[-1].value is None


__all__ = ["PEND", "PendingPlacer", "pending_read"]
