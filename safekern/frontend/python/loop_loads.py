"""Checked loads in innermost loops, and the gathers of statement lists that gather in two
statements or more, as `_sk_loadv` (a pass of eliminate.py's output)."""
from __future__ import annotations

import ast

from . import names
from .trees import walk


class LoopLoads(ast.NodeTransformer):
    """Checked loads in innermost `for` loops (not the checked copies of versioned loops) and
    the gathers (a load whose index holds a load, and the loads in it) of statement lists where
    two statements or more gather become `_sk_loadv`: the load does not wait behind its
    check's branch, so the loads of successive iterations (CSR SpMV's x[indices[k]]) or
    statements (Perlin noise's permutation-table gathers) stay in flight together.

    Other loads of a straight run keep their branch, however many there are: the branch-free
    form holds each load's address, both failure-buffer fallbacks and its compares live until
    the load, a few registers per load. fbpic's field gather (eighteen 2-D complex loads per
    call) went from 112 to 144 registers with them, which halves its occupancy at 256 threads
    a block: 1.47x -> 1.61x plain numba on an H100 (issue 26, 2026-11-27). A gather is worth
    it: its load waits for the load in its index anyway, and without a branch the next
    statement's gathers start meanwhile."""

    def __init__(self, checked_copies: set):
        self.depth_inner = 0
        self.checked_copies = checked_copies       # id()s of the versioner's checked loops
        self.among_others: set = set()             # id()s of loads to make branch-free

    def visit_For(self, node):
        innermost = not any(isinstance(n, (ast.For, ast.While)) for s in node.body
                            for n in walk(s))
        if innermost and id(node) not in self.checked_copies:
            self.depth_inner += 1
            self.generic_visit(node)
            self.depth_inner -= 1
            return node
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        # (among others: exits.py leaves once after a run of straight statements, not after
        # each, so there is no branch of its own between them either)
        if _is_load(node) and (self.depth_inner or id(node) in self.among_others):
            node.func = ast.copy_location(ast.Name(names.LOADV, ast.Load()), node.func)
        return node

    def find_loads(self, stmts) -> None:
        """The gathers, and the loads in their indices, of the statement lists (`stmts` and
        those nested in it) where two statements or more gather."""
        lists = [stmts] + [getattr(n, field) for s in stmts for n in walk(s)
                           for field in ("body", "orelse", "finalbody")
                           if isinstance(getattr(n, field, None), list)]
        for block in lists:
            found = [[m for n in _expressions(s) if _is_gather(n) for m in walk(n)
                      if _is_load(m)] for s in block if isinstance(s, ast.stmt)]
            if sum(1 for f in found if f) > 1:
                self.among_others.update(id(n) for f in found for n in f)


def _expressions(stmt):
    """The nodes of a simple statement (none of a compound one: its parts are lists)."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)):
        yield from walk(stmt)


def _is_gather(node) -> bool:
    return _is_load(node) and len(node.args) > 1 and any(_is_load(n) for n in walk(node.args[1]))


def _is_load(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id in (names.LOAD, names.LOADV)


__all__ = ["LoopLoads"]
