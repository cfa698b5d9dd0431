"""ast.NodeTransformer's walk, cheaper per node: the front end's rewriting passes (the check
rewriter, the Unchecker, loop loads) each visit every node of a function body.

The same visits in the same order, with two savings: a node's children are read from its
`__dict__` through the fields that may hold nodes (trees.child_fields: not the expression
contexts -- `Load`, `Store`, childless markers no pass rewrites -- nor the names, strings
and numbers the grammar puts in a node), not `ast.iter_fields`' getattr per field; and the
`visit_<Class>` method each node class takes is looked up once per pass class.
"""
from __future__ import annotations

import ast

from .trees import child_fields
from .visitor import Visitor


class Transformer(Visitor, ast.NodeTransformer):
    """ast.NodeTransformer with a cheaper visit (Visitor's) and generic_visit (see the module
    doc)."""

    def generic_visit(self, node):
        attrs, is_node = node.__dict__, ast.AST
        for field in child_fields(type(node)):
            old = attrs.get(field)
            if old is None:
                continue
            if type(old) is list:
                new_values = []
                for value in old:
                    if isinstance(value, is_node):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, is_node):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old[:] = new_values
            elif isinstance(old, is_node):
                new = self.visit(old)
                if new is None:
                    delattr(node, field)
                else:
                    attrs[field] = new
        return node


__all__ = ["Transformer"]
