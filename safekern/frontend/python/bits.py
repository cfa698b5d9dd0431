"""`<<`, `>>` and `&` in index expressions: their bounds, for index_forms.py (analysis only).

`1 << i` (a power of two from a loop variable: a reduction's stride) and `h & 255` (a
permutation table's index) are exact integers with known bounds where their operands are:
shift counts in [0, 62] only (a negative count is an error, a larger one may wrap), and a
mask >= 0, whose result lies in [0, mask] for any integer operand, negative ones included
(two's complement: the mask's bits only).
"""
from __future__ import annotations

import ast

from .linear import Form


def bits_form(lin, node, left: Form, right: Form) -> Form | None:
    """`c << k` (c >= 0), `x >> k` and `x & c` (c >= 0 a constant): exact integers with
    the bounds below (the shifts only for counts in [0, 62]: a negative count is an
    error, a larger one wraps), else None. `x & c` is in [0, c] whatever x is."""
    if isinstance(node.op, ast.BitAnd):
        for mask, other in ((right, left), (left, right)):
            if not mask.terms and mask.const >= 0:
                if not other.terms:
                    return Form((), mask.const & other.const)
                return lin._opaque(node, left, right, nonneg=True, upper=mask.const)
        return None
    low, high = lin.atoms.minimum(left), lin.atoms.maximum(left)
    k_low, k_high = lin.atoms.minimum(right), lin.atoms.maximum(right)
    if None in (low, k_low) or k_low < 0:
        return None
    if not left.terms and not right.terms:
        if right.const > 62:
            return None
        value = left.const << right.const if isinstance(node.op, ast.LShift) \
            else left.const >> right.const
        return Form((), value)
    if isinstance(node.op, ast.RShift):
        if high is None or k_high is None or k_high > 62:
            return None
        return lin._opaque(node, left, right, nonneg=low >= 0, lower=low >> k_high
                           if low >= 0 else low >> k_low, upper=high >> k_low
                           if high >= 0 else high >> k_high)
    if low < 0:
        return None
    # `1 << i` for i in a range: i's static bound is the assumed loop count (loop_bounds.py),
    # so the upper end is often unknown here; the facts where it is used bound it (exact()).
    upper = high << k_high if high is not None and k_high is not None and k_high <= 62 \
        else None
    return lin._opaque(node, left, right, nonneg=True, lower=low << k_low, upper=upper)


def bits_interval(op, left, right):
    """(lo, hi) of `left << right`, `left >> right`, `left & right` (see bits_form), where
    `x & c` needs no interval of x (None: not bounded, or not an integer expression we know;
    an integer all the same, as numba types `&` on integers only)."""
    if isinstance(op, ast.BitAnd):
        masks = [side for side in (right, left) if side is not None and side[0] == side[1] >= 0]
        return (0, masks[0][0]) if masks else None
    if left is None or right is None or right[0] < 0 or right[1] > 62:
        return None
    ends = [a << k if isinstance(op, ast.LShift) else a >> k for a in left for k in right]
    if isinstance(op, ast.LShift) and left[0] < 0:
        return None
    return min(ends), max(ends)


__all__ = ["bits_form", "bits_interval"]
