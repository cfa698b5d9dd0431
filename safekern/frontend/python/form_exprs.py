"""Linear forms back to expressions: what versioning.py's tests compute (analysis only)."""
from __future__ import annotations

import ast
import copy

from .linear import Form


class FormExpressions:
    """The Linearizer's forms as expressions (a mixin: `self.atoms` is its Atoms)."""

    def to_expr(self, form: Form):
        """An expression computing `form` (atoms by the expressions they came from)."""
        out = None
        for atom, c in form.terms:
            term = copy.deepcopy(self.atoms[atom].node)
            if term is None:
                return None
            if abs(c) != 1:
                term = ast.BinOp(ast.Constant(abs(c)), ast.Mult(), term)
            if out is None:
                out = term if c > 0 else ast.UnaryOp(ast.USub(), term)
            else:
                out = ast.BinOp(out, ast.Add() if c > 0 else ast.Sub(), term)
        if out is None:
            return ast.Constant(form.const)
        if form.const:
            out = ast.BinOp(out, ast.Add() if form.const > 0 else ast.Sub(),
                            ast.Constant(abs(form.const)))
        return out

    def magnitude(self, form: Form, local):
        """An upper bound of |every partial sum| of `form` as to_expr computes it, or None."""
        total = abs(form.const)
        for atom, c in form.terms:
            lo = self.atoms.bound(atom, local, False)
            hi = self.atoms.bound(atom, local, True)
            if lo is None or hi is None:
                return None
            total += abs(c) * max(abs(lo), abs(hi))
        return total


__all__ = ["FormExpressions"]
