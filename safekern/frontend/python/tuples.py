"""Subscripts of values that are tuples in every kernel, whatever numba types the rest as:
`cuda.grid(2)[k]`, `cuda.gridsize(3)[k]`, `a.shape[k]`, `a.strides[k]`, `(x, y)[k]`, and names
bound only to such values (`g = cuda.grid(2)` ... `g[0]`). Tuples are never checked (numba
refuses an index out of a tuple's range, or types it per element), so these are left as they
are: no check helper, no report entry (issue 29: `cuda.grid(2)[types.uint32(0)]` was reported
"checked" and went through the load helper). Analysis only."""
from __future__ import annotations

import ast

from .bindings import bound_names, is_grid_call
from .trees import walk


class TupleValues:
    """`is_tuple(value)` for the subscripted values of the function `tree`."""

    def __init__(self, tree: ast.FunctionDef, is_cuda):
        self.is_cuda = is_cuda
        # A name counts when every binding of it is `name = <tuple expression>`: any other
        # binding (a parameter, a loop target, an unpacking, a walrus, `+=`) may be an array.
        counts: dict = {}
        for name in bound_names(tree):
            counts[name] = counts.get(name, 0) + 1
        values: dict = {}
        for n in walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name):
                values.setdefault(n.targets[0].id, []).append(n.value)
        self._names = {name for name, bound in values.items()
                       if counts.get(name) == len(bound) and all(map(self._direct, bound))}

    def _direct(self, value) -> bool:
        return isinstance(value, ast.Tuple) or is_grid_call(value, self.is_cuda, scalar=False) \
            or (isinstance(value, ast.Attribute) and value.attr in ("shape", "strides"))

    def is_tuple(self, value) -> bool:
        return self._direct(value) or (isinstance(value, ast.Name) and value.id in self._names)


__all__ = ["TupleValues"]
