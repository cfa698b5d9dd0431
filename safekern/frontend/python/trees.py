"""Whole-tree operations the front end runs on every function body, made cheap: a deep copy
(`copy_tree`: what `copy.deepcopy` makes, in a third of the time) and `walk` (`ast.walk`'s
nodes in its order but the expression contexts, in a third of the time: the passes walk
statements again and again).

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

    immutable = _IMMUTABLE

    def cp(x):
        t = type(x)
        if t in immutable:
            return x
        got = memo.get(id(x))
        if got is not None:
            return got
        if isinstance(x, ast.AST):
            new = t.__new__(t)
            memo[id(x)] = new
            attrs = new.__dict__
            # (positions, names and constants -- most of a node's attributes -- as they are,
            # without a call each)
            for k, v in x.__dict__.items():
                attrs[k] = v if type(v) in immutable else cp(v)
            return new
        if t is list:
            new = memo[id(x)] = []
            new.extend([v if type(v) in immutable else cp(v) for v in x])
            return new
        return copy.deepcopy(x, memo)

    return cp(node)


_CHILD_FIELDS: dict = {}     # node class -> its fields that may hold nodes (not `ctx`)

# Fields the grammar gives only a name, a constant or a string: never a node (a Name's `id`, a
# Constant's `value`: the most common nodes hold nothing else).
_LEAF_FIELDS = frozenset(("id", "attr", "arg", "kind", "type_comment", "module", "level",
                          "asname", "conversion", "is_async", "simple"))
_LEAF_FIELDS_OF = {ast.Constant: ("value",), ast.Global: ("names",), ast.Nonlocal: ("names",),
                   ast.FunctionDef: ("name",), ast.AsyncFunctionDef: ("name",),
                   ast.ClassDef: ("name",), ast.ExceptHandler: ("name",), ast.alias: ("name",)}


def child_fields(t) -> tuple:
    """The fields of node class `t` that may hold nodes: not `ctx`, nor a leaf field."""
    fields = _CHILD_FIELDS.get(t)
    if fields is None:
        leaves = _LEAF_FIELDS_OF.get(t, ())
        fields = _CHILD_FIELDS[t] = tuple(f for f in t._fields if f != "ctx" and
                                          f not in _LEAF_FIELDS and f not in leaves)
    return fields


def add_children(node, out: list) -> list:
    """`out` with the child nodes of `node` appended, in ast.iter_child_nodes' order, less the
    expression contexts (child_fields)."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = child_fields(type(node))
    if fields:
        attrs, is_node, push = node.__dict__, ast.AST, out.append
        for name in fields:     # (an AST node keeps its fields in __dict__: copy_tree's premise)
            value = attrs.get(name)
            if value is None:
                continue
            if type(value) is list:
                for x in value:
                    if isinstance(x, is_node):
                        push(x)
            elif isinstance(value, is_node):
                push(value)
    return out


def walk(node):
    """The nodes of `node`'s tree, breadth first, as `ast.walk` yields them (without its
    generator per node and per field), less the expression contexts (`Load`, `Store`, `Del`:
    childless markers, a third of a tree's nodes, that no pass looks for -- a pass reads a
    name's `.ctx`)."""
    # (add_children's loop, written out: a call per node made the walk 40% slower, and the
    # passes walk statements again and again)
    todo, is_node, fields_of = [node], ast.AST, _CHILD_FIELDS
    push = todo.append
    for node in todo:           # (a list read in order as it grows: breadth first, as
        t = type(node)          # ast.walk's deque)
        fields = fields_of.get(t)
        if fields is None:
            fields = child_fields(t)
        if fields:
            attrs = node.__dict__
            for name in fields:
                value = attrs.get(name)
                if value is None:
                    continue
                if type(value) is list:
                    for x in value:
                        if isinstance(x, is_node):
                            push(x)
                elif isinstance(value, is_node):
                    push(value)
        yield node


def place(module, default) -> None:
    """Positions for the generated nodes of `module`, in one walk: a statement or expression
    without one takes `default`'s (the def line: where a failure in generated code is
    reported), and then, as ast.fix_missing_locations does (a recursive walk of its own,
    slower), every other node lacking a part of its position takes that part from its
    nearest ancestor's."""
    _place(module, default, False)


def fix_missing_locations(node):
    """`node`, with what ast.fix_missing_locations gives it (every node lacking a part of its
    position takes that part from its nearest ancestor's, the nodes in its order), without
    its recursion and field iteration per node."""
    _place(node, None, True)
    return node


def _place(module, default, in_order: bool) -> None:
    """place's walk; without `default`, fix_missing_locations'; `in_order`: the nodes in
    the order of ast.fix_missing_locations' recursion (where a node sits in two places, the
    first gives it what it lacks)."""
    stack = [(module, (1, 0, 1, 0))]
    pop, push = stack.pop, stack.append
    fields_of, is_node, located = _CHILD_FIELDS, ast.AST, (ast.stmt, ast.expr)
    # (what ast.copy_location(node, default) sets on a statement or expression, found once)
    given = () if default is None else tuple(
        (name, value) for name in _PLACES if name in default._attributes
        for value in [getattr(default, name, None)]
        if value is not None or name.startswith("end_") and hasattr(default, name))
    while stack:
        node, parent = pop()
        attrs = node.__dict__
        if "lineno" in node._attributes:
            get = attrs.get
            here = (get("lineno"), get("col_offset"), get("end_lineno"), get("end_col_offset"))
            if None in here:        # (most nodes have all four: the user's, copied)
                if default is not None and "lineno" not in attrs and isinstance(node, located):
                    for name, value in given:
                        attrs[name] = value
                here = []
                for name, inherited in zip(_PLACES, parent):
                    value = attrs.get(name)
                    if value is None and (name.startswith("end_") or name not in attrs):
                        value = attrs[name] = inherited
                    here.append(value)
                here = tuple(here)
            parent = here
        t = type(node)
        fields = fields_of.get(t)
        if fields is None:
            fields = child_fields(t)
        if in_order:
            children = add_children(node, [])
            children.reverse()
            stack.extend([(x, parent) for x in children])
            continue
        for name in fields:
            value = attrs.get(name)
            if value is None:
                continue
            if type(value) is list:
                for x in value:
                    if isinstance(x, is_node):
                        push((x, parent))
            elif isinstance(value, is_node):
                push((value, parent))


_PLACES = ("lineno", "col_offset", "end_lineno", "end_col_offset")

__all__ = ["copy_tree", "walk", "place", "fix_missing_locations", "child_fields",
           "add_children"]
