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
from .transformer import Transformer
from .trees import copy_tree, walk

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
    return len(a) == len(b) and all(ast.dump(x) == ast.dump(y) for x, y in zip(a, b))


class _SameBranches(Transformer):
    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        if node.orelse and _same(node.body, node.orelse) and _pure(node.test):
            return node.body
        return node


def collapse_same_branches(stmts: list, *, owned: bool = False) -> list:
    """The statements with every effect-free `if T: A else: A` made `A` (module doc)."""
    out = []
    visitor = _SameBranches()
    for stmt in stmts:
        new = visitor.visit(stmt if owned else copy_tree(stmt))
        out += new if isinstance(new, list) else [new]
    return out


__all__ = ["collapse_same_branches"]
