"""What exits.py asks of every statement of a body -- does it hold a check, a barrier, a grid
sync, a call of a device function with barriers, anything that must not run after a failure
-- found for all of them in one walk (an analysis).

The exit planner asks these of each statement, then of each statement inside it as it goes
down, and so on: every node was walked once per enclosing statement and per question, and
every call classified as often (exits.py was a third of pipeline._finish). Here each node is
looked at once and each statement's answers are those of its own nodes joined with its inner
statements'.

The planner asks only before it edits a statement, or asks what its edits cannot change (it
adds flag tests and barriers, never a check call or a call of a device function), so the
answers found up front are the ones a walk at the time of asking would give. Where a
statement object sits in two places of the body (edited at the first, asked at the second),
that would not hold: then nothing is kept and every question walks the statement as it is.
"""
from __future__ import annotations

import ast

from . import names
from .trees import child_fields

CHECK = 1            # a check helper's call: evaluating it may fail (exits.may_fail)
BARRIER = 2          # a block barrier, a grid sync or a device function with barriers
GRID = 4             # a grid sync
BARRIER_DEVICE = 8   # a call of a checked device function that holds barriers
PLAIN_BARRIER = 16   # a block barrier itself (syncthreads and its _count/_and/_or)
UNSAFE = 32          # must not run after a failure: a while loop, a plain store, an atomic
                     # of cuda.atomic, a call of a plain device function
PRINT = 64           # a call of `print`


class ExitFacts:
    """The flags above, per statement of a body (see the module doc)."""

    def __init__(self, body, resolver, parsed):
        self.resolver = resolver
        self.parsed = parsed
        self._known: dict | None = {}     # id(stmt) -> (stmt, flags): the stmt kept alive
        self.all = 0
        for stmt in body:
            self.all |= self._of(stmt)
        if self._known is None:           # (a statement in two places: see the module doc)
            self.all = 0
            for stmt in body:
                self.all |= self._of(stmt)

    def of(self, node) -> int:
        """The flags of `node`'s tree (a statement of the body, or any node)."""
        known = self._known
        if known is not None:
            got = known.get(id(node))
            if got is not None:
                return got[1]
        return self._of(node)

    def _of(self, node) -> int:
        """The flags of `node`'s tree; each statement's kept (while `_known` is kept)."""
        flags, todo, is_stmt, is_node = 0, [node], ast.stmt, ast.AST
        call, name, subscript, attribute = ast.Call, ast.Name, ast.Subscript, ast.Attribute
        for n in todo:
            t = type(n)
            if t is call:
                flags |= self._call(n)
            elif t is subscript:
                if type(n.ctx) is ast.Store:
                    flags |= UNSAFE
            elif t is attribute:
                if n.attr == "atomic" and type(n.value) is name and n.value.id == names.CUDA:
                    flags |= UNSAFE
            elif t is ast.While:
                flags |= UNSAFE
            attrs = n.__dict__
            for field in child_fields(t):
                value = attrs.get(field)
                if value is None:
                    continue
                for x in value if type(value) is list else (value,):
                    if isinstance(x, is_stmt):
                        flags |= self._of(x)
                    elif isinstance(x, is_node):
                        todo.append(x)
        if isinstance(node, is_stmt) and self._known is not None:
            if id(node) in self._known:
                self._known = None       # met twice: keep nothing
            else:
                self._known[id(node)] = (node, flags)
        return flags

    def _call(self, call: ast.Call) -> int:
        flags = 0
        func = call.func
        if type(func) is ast.Name:
            if func.id.startswith(names.CHECK_HELPERS):
                flags |= CHECK
            elif func.id == "print":
                flags |= PRINT
        role = self.resolver.classify_call(func, self.parsed)
        if role is None:
            return flags
        kind = role[0]
        if kind == "grid_sync":
            flags |= BARRIER | GRID
        elif kind == "barrier":
            flags |= BARRIER | PLAIN_BARRIER
        elif kind == "device":
            if getattr(role[1], "has_barriers", False):
                flags |= BARRIER | BARRIER_DEVICE
        elif kind == "plain_device":
            flags |= UNSAFE
        return flags

    def kinds(self) -> set:
        """The kinds of barrier the body holds (exits.barrier_kinds)."""
        return {kind for kind, bit in (("block", BARRIER_DEVICE | PLAIN_BARRIER),
                                       ("grid", GRID)) if self.all & bit}


__all__ = ["ExitFacts", "CHECK", "BARRIER", "GRID", "BARRIER_DEVICE", "PLAIN_BARRIER",
           "UNSAFE", "PRINT"]
