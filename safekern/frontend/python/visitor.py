"""ast.NodeVisitor's walk, cheaper per node (transformer.py's savings, for passes that only
look): children read through trees.child_fields, each node class's method looked up once."""
from __future__ import annotations

import ast

from .trees import add_children

_METHODS: dict = {}      # (pass class, node class) -> the name of the method that visits it


class Visitor(ast.NodeVisitor):
    """ast.NodeVisitor with a cheaper visit and generic_visit."""

    def visit(self, node):
        key = (type(self), type(node))
        name = _METHODS.get(key)
        if name is None:
            name = "visit_" + type(node).__name__
            name = _METHODS[key] = name if hasattr(type(self), name) else "generic_visit"
        return getattr(self, name)(node)

    def generic_visit(self, node):
        for child in add_children(node, []):
            self.visit(child)

__all__ = ["Visitor"]
