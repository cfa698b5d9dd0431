"""Bounds of range loop variables everywhere in a function (analysis only; for index_forms.py).

A name bound only as the target of `for v in range(lo, hi, step)` loops (a positive step) is at
least the least `lo` wherever it is read, and -- as no loop runs 2**48 iterations (assumed,
docs/checks.md) -- at most the largest `lo + step * (2**48 - 1)`. So `v + 1` with `v` below a
parameter `iterations` (hotspot's and pathfinder's `for i in range(iteration)`) is exact
arithmetic. A loop over a uint64 computes `v + 1` in float64, exact only below 2**53: arithmetic
whose bounds come from this assumption must stay below 2**53 (`exact_limit`), not 2**62.
"""
from __future__ import annotations

import ast
from .trees import walk

LOOP_MAX = 2 ** 48           # assumed: no loop runs this many iterations


def range_var_bounds(lin, name):
    """(lower, upper) of a range variable by its loops' `lo` and `step` (None: not known)."""
    if name in lin._active:
        return None, None
    lin._active.add(name)
    try:
        lows, highs = [], []
        for lo, step in lin.range_vars[name]:
            lo_iv, step_iv = lin.interval(lo, {}), lin.interval(step, {})
            if lo_iv is None or step_iv is None or step_iv[0] < 1:
                return None, None
            lows.append(lo_iv[0])
            highs.append(lo_iv[1] + step_iv[1] * (LOOP_MAX - 1))
        return min(lows), max(highs)
    finally:
        lin._active.discard(name)


def exact_limit(lin, node, local, wide: int, float_exact: int) -> int:
    """`wide`, or `float_exact` where `node` reads a range variable that the facts in scope
    (`local`) do not bound from above: it is bounded by the assumed iteration count only.
    (Where they do, the rule is the one for any integer name bounded by facts.)"""
    for n in walk(node):
        if isinstance(n, ast.Name) and n.id in lin.range_vars:
            atom = lin.name_atom(n.id)
            upper = lin.atoms[atom].upper
            extra = (local or {}).get(atom, (None, None))[1]
            if upper is not None and upper >= LOOP_MAX // 2 and extra is None:
                return float_exact
    return wide


__all__ = ["range_var_bounds", "exact_limit", "LOOP_MAX"]
