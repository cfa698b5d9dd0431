"""Facts of `a != b` (and of `a == b` where it failed) between integers (analysis only; for
index_forms.py).

`a != b` alone is a disjunction (`a < b or a > b`), no linear fact. Where the code already knows
`a >= b` -- from the facts in scope, the atoms' bounds (`blockIdx.y >= 0`) or the launch's
definition of the thread indices (`blockIdx.y <= gridDim.y - 1`) -- it gives `a >= b + 1`; where
it knows `a <= b`, `a <= b - 1`. So the `else` of `if by == 0:` has `by >= 1`, the `else` of
`if by == cuda.gridDim.y - 1:` has `by <= gridDim.y - 2` (srad's halo rows).
"""
from __future__ import annotations

from .launch import LaunchProver
from .linear import Fact


def not_equal_facts(lin, a, b, origin: str, scope) -> list:
    """[Fact] of `a != b` for integer forms `a`, `b` whose comparison is exact."""
    if not (lin.atoms.integer(a) and lin.atoms.integer(b)):
        return []
    d = a - b
    known = list(scope) + LaunchProver(lin, {}).thread_facts([d])
    if lin.prove(d, known) is not None:            # a >= b, a != b: a - b - 1 >= 0
        form = d.plus(-1)
    elif lin.prove(d.scale(-1), known) is not None:
        form = d.scale(-1).plus(-1)
    else:
        return []
    return [Fact(form, lin.deps(form), origin)]


__all__ = ["not_equal_facts"]
