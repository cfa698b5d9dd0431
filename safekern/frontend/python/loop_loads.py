"""Checked loads in innermost loops as `_sk_loadv` (a pass of eliminate.py's output)."""
from __future__ import annotations

import ast

from . import names
from .trees import walk


class LoopLoads(ast.NodeTransformer):
    """Checked loads in innermost `for` loops (not the checked copies of versioned loops)
    become `_sk_loadv`: the load does not wait behind its check's branch, so the loads of
    successive iterations stay in flight together (CSR SpMV's x[indices[k]])."""

    def __init__(self, checked_copies: set):
        self.depth_inner = 0
        self.checked_copies = checked_copies       # id()s of the versioner's checked loops

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
        if self.depth_inner and isinstance(node.func, ast.Name) and node.func.id == names.LOAD:
            node.func = ast.copy_location(ast.Name(names.LOADV, ast.Load()), node.func)
        return node


__all__ = ["LoopLoads"]
