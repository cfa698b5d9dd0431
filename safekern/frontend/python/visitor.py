"""ast.NodeVisitor's walk, cheaper per node (transformer.py's savings, for passes that only
look): children read through trees.child_fields, each node class's method looked up once."""
from __future__ import annotations

import ast

from .trees import child_fields

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
        attrs, is_node = node.__dict__, ast.AST
        for field in child_fields(type(node)):
            value = attrs.get(field)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, is_node):
                        self.visit(item)
            elif isinstance(value, is_node):
                self.visit(value)


__all__ = ["Visitor"]
