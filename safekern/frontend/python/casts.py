"""Integer casts of constants in kernels: `types.uint32(0)`, `np.int64(3)` (analysis only).

Such a cast of an int constant has one value, which the index forms read as that constant
(index_forms.py): `x = cuda.grid(2)[types.uint32(0)]` is the grid position on axis 0, and an
early-return guard on `x` proves the accesses it guards (issue 29: the cast hid it). What the
callee is comes from the function's names (its globals and closure), never from spelling: a
function the user calls `uint32` is no cast. Casts of anything but constants are not read
through (a narrowing cast may wrap).
"""
from __future__ import annotations

import ast


def integer_type(obj) -> tuple[int, bool] | None:
    """(bits, signed) of a numba integer type (`numba.types.uint32`) or a NumPy integer class
    (`np.int64`), else None."""
    cls = type(obj)
    if cls.__name__ == "Integer" and cls.__module__.startswith("numba"):
        bits, signed = getattr(obj, "bitwidth", None), getattr(obj, "signed", None)
        if isinstance(bits, int) and isinstance(signed, bool):
            return bits, signed
    if isinstance(obj, type):
        import numpy as np

        if issubclass(obj, np.integer) and obj is not np.integer:
            try:
                info = np.iinfo(obj)
            except ValueError:
                return None
            return info.bits, info.min < 0
    return None


def wrapped(value: int, bits: int, signed: bool) -> int:
    """`value` as an integer of that width holds it (two's complement)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


class IntegerCasts:
    """`constant(node)`: the value of `T(c)` with T an integer type and c an int constant."""

    def __init__(self, lookup):
        self._lookup = lookup        # what a name or attribute of the function means (None:
        self._types: dict = {}       # no names known, so no casts)

    def fold(self, node):
        """`node`, or the constant it is when it is such a cast."""
        value = self.constant(node)
        return node if value is None else ast.copy_location(ast.Constant(value), node)

    def constant(self, node) -> int | None:
        if self._lookup is None or not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and
                isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is int and
                isinstance(node.func, (ast.Name, ast.Attribute))):
            return None
        key = ast.dump(node.func)
        if key not in self._types:
            try:
                self._types[key] = integer_type(self._lookup(node.func))
            except Exception:            # noqa: BLE001 - a name that cannot be resolved
                self._types[key] = None
        kind = self._types[key]
        return None if kind is None else wrapped(node.args[0].value, *kind)


__all__ = ["IntegerCasts", "integer_type", "wrapped"]
