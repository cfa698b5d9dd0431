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
            name = _METHODS[key] = _method(type(self), type(node))
        return getattr(self, name)(node)

    def generic_visit(self, node):
        for child in add_children(node, []):
            self.visit(child)


def _method(cls, node_class) -> str:
    """The name of the method of pass class `cls` that visits a `node_class` node. A Constant
    without a visit_Constant of the pass's own goes to generic_visit, where ast.NodeVisitor's
    visit_Constant would send it after looking for the pass's visit_Num, visit_Str, ...
    (Python 3.7's node classes: an AttributeError raised and caught per constant) -- unless
    the pass has one of those."""
    name = "visit_" + node_class.__name__
    method = getattr(cls, name, None)
    if method is None:
        return "generic_visit"
    if method is _INHERITED_CONSTANT and not any(hasattr(cls, "visit_" + old)
                                                 for old in _OLD_CONSTANTS):
        return "generic_visit"
    return name


_INHERITED_CONSTANT = ast.NodeVisitor.visit_Constant
_OLD_CONSTANTS = ("Num", "Str", "Bytes", "NameConstant", "Ellipsis")

__all__ = ["Visitor"]
