"""Versioned loops whose two copies came out the same: one copy, no test.

Loop versioning (versioning.py) writes a loop twice -- unchecked, under a test made before it
that its indices stay in bounds, and checked otherwise. Where every check of the checked copy
is gone (a launch variant leaves out the checks its predicates prove; elimination may prove
the rest), the two copies are the same code, and the test and the second copy only cost
compile time and code size. `collapse_same_branches(stmts)` returns the statements with each
`if TEST: A else: A` -- TEST free of effects (comparisons, arithmetic, names, attributes, the
extents versioning asks for) -- replaced by A. A pure rewrite: the input is not changed
(unless the caller gives it statements of its own, `owned=True`: they are edited in place,
no copy made).
"""
from __future__ import annotations

import ast

from . import names
from .trees import child_fields, copy_tree, walk

_PURE = (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant,
         ast.Attribute, ast.Subscript, ast.Load, ast.Tuple, ast.boolop, ast.cmpop,
         ast.operator, ast.unaryop, ast.expr_context)


def _pure(test) -> bool:
    for node in walk(test):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id == names.EXTENT):
                return False
            continue
        if isinstance(node, ast.Subscript) and not _shape_subscript(node):
            return False              # an access (a load that might fail) is not dropped
        if not isinstance(node, _PURE):
            return False
    return True


def _shape_subscript(node: ast.Subscript) -> bool:
    return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"


def _same(a: list, b: list) -> bool:
    # (the classes first: most branches differ there, and a dump is a walk of each)
    return len(a) == len(b) and all(type(x) is type(y) for x, y in zip(a, b)) and \
        all(ast.dump(x) == ast.dump(y) for x, y in zip(a, b))


def _statement(stmt):
    """`stmt` with its inner statement lists collapsed (in place), and itself as the list A
    where it is an `if T: A else: A` to collapse: what an ast.NodeTransformer with this
    visit_If would make, visiting only the statements (an expression holds none)."""
    attrs = stmt.__dict__
    for field in child_fields(type(stmt)):
        value = attrs.get(field)
        if type(value) is list:
            _block(value)
    if type(stmt) is ast.If and stmt.orelse and _same(stmt.body, stmt.orelse) and \
            _pure(stmt.test):
        return stmt.body
    return stmt


def _block(nodes: list) -> None:
    """A list field's statements collapsed, in place (and those of its except handlers and
    match cases, the other nodes that hold statements)."""
    out, is_stmt, holders = [], ast.stmt, (ast.excepthandler, ast.match_case)
    for node in nodes:
        if isinstance(node, is_stmt):
            node = _statement(node)
            if type(node) is list:
                out.extend(node)
                continue
        elif isinstance(node, holders):
            _statement(node)
        out.append(node)
    nodes[:] = out


def collapse_same_branches(stmts: list, *, owned: bool = False) -> list:
    """The statements with every effect-free `if T: A else: A` made `A` (module doc)."""
    out = []
    for stmt in stmts:
        new = _statement(stmt if owned else copy_tree(stmt))
        out += new if isinstance(new, list) else [new]
    return out


__all__ = ["collapse_same_branches"]
