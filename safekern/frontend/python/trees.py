"""Whole-tree operations the front end runs on every function body, made cheap: a deep copy
(`copy_tree`: what `copy.deepcopy` makes, in a third of the time) and `walk` (`ast.walk`'s
nodes in its order, in half the time: the passes walk statements again and again).

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
from collections import deque

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


def walk(node):
    """The nodes of `node`'s tree, breadth first, as `ast.walk` yields them (without its
    generator per node and per field)."""
    todo = deque((node,))
    pop, push, extend, is_node = todo.popleft, todo.append, todo.extend, ast.AST
    while todo:
        node = pop()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, is_node):
                push(value)
            elif isinstance(value, list):
                extend([x for x in value if isinstance(x, is_node)])
        yield node


__all__ = ["copy_tree", "walk"]
