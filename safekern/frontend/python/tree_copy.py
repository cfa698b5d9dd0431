"""A deep copy of a syntax tree, as `copy.deepcopy` makes it, in a third of the time.

The passes edit the nodes they are given, so the front end copies whole function bodies: the
check rewriter its parse, every elimination run its input, the launch variant the eliminated
body. `copy.deepcopy` goes through `__reduce_ex__` and a reconstruction per node; the copy here
makes each node from its class and copies its attributes (an AST node keeps its fields and
positions, and anything a pass set on it, in its `__dict__`). Nodes and lists met twice are
copied once, shared the same way in the copy (deepcopy's memo); anything else that is not an
immutable scalar is left to deepcopy itself, with the same memo.
"""
from __future__ import annotations

import ast
import copy

_IMMUTABLE = frozenset((str, int, float, bool, type(None), bytes, complex, type(Ellipsis)))


def copy_tree(node):
    """A deep copy of `node` (an AST node, a list of them, or anything deepcopy copies)."""
    memo: dict = {}

    def cp(x):
        t = type(x)
        if t in _IMMUTABLE:
            return x
        got = memo.get(id(x))
        if got is not None:
            return got
        if isinstance(x, ast.AST):
            new = t.__new__(t)
            memo[id(x)] = new
            attrs = new.__dict__
            for k, v in x.__dict__.items():
                attrs[k] = cp(v)
            return new
        if t is list:
            new = memo[id(x)] = []
            new.extend([cp(v) for v in x])
            return new
        return copy.deepcopy(x, memo)

    return cp(node)


__all__ = ["copy_tree"]
