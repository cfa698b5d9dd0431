"""The user's text of an expression the check rewriter has edited already.

`r[i].v[j]`: when the access `.v[j]` is registered, `r[i]` inside it is a checked load
(`_sk_load(r, i, code, fb, flag)`); a failure's message names the array as the user wrote it,
`r[i].v`.
"""
from __future__ import annotations

import ast

from . import names
from .trees import copy_tree, walk


class _AsWritten(ast.NodeTransformer):
    """A checked load the rewrite already put into an expression, as the subscript it checks."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id.startswith(names.LOAD) and len(node.args) >= 2:
            return ast.Subscript(value=node.args[0], slice=node.args[1], ctx=ast.Load())
        return node


def users_text(value) -> str:
    """The user's text of the array an access indexes, which may hold an access checked
    already (`r[i].v[j]`: `r[i]` is a checked load when `.v[j]` is registered)."""
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
               n.func.id.startswith(names.LOAD) for n in walk(value)):
        return ast.unparse(value)
    return ast.unparse(_AsWritten().visit(copy_tree(value)))


__all__ = ["users_text"]
