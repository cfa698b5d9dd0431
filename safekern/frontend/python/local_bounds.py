"""Bounds of integer atoms that a list of facts implies (the provers' local bounds: linear.py;
`atoms` are its Atoms, facts and forms its Fact and Form)."""
from __future__ import annotations


def local_bounds(atoms, facts) -> dict:
    """Bounds of integer atoms that the facts imply ({atom: (lower, upper)}), by a few rounds of
    propagation: from `c*x + rest >= 0` and an upper bound of `rest`, a bound of x (so from
    k == 16*t + tx and t >= 0, k >= 0). Rounding to the next integer is what makes them useful,
    so atoms that might not be integers get none."""
    bounds: dict = {}
    for _ in range(3):
        changed = False
        for fact in facts:
            for atom, c in fact.form.terms:
                if not atoms[atom].integer:
                    continue
                top = _maximum_without(atoms, fact.form, atom, bounds)
                if top is None:
                    continue
                lo, hi = bounds.get(atom, (None, None))
                if c > 0:        # c*x >= -rest >= -top
                    new = -(top // c)
                    if lo is None or new > lo:
                        bounds[atom] = (new, hi)
                        changed = True
                else:            # -|c|*x >= -top  ->  x <= top // |c|
                    new = top // -c
                    if hi is None or new < hi:
                        bounds[atom] = (lo, new)
                        changed = True
        changed = _aligned(atoms, bounds) or changed
        if not changed:
            break
    return bounds


def _maximum_without(atoms, form, skip, bounds: dict):
    """`atoms.maximum(form.without(skip), bounds)` without making the two forms (local_bounds
    asks it for every atom of every fact, in each round): each term at the bound its sign
    needs, negation being exact."""
    total = form.const
    for atom, c in form.terms:
        if atom == skip:
            continue
        b = atoms.bound(atom, bounds, upper=c > 0)
        if b is None:
            return None
        total += c * b
    return total


def _aligned(atoms, bounds: dict) -> bool:
    """Where the facts make `x % c` zero (`if ty % 2 == 0`; index_forms.py's atom of `x % c`,
    c > 0 a constant, x an integer atom), x is a multiple of c: its bounds round inwards to
    multiples of c (ty <= 15 becomes ty <= 14). Python's and numba's `%` is x - c * (x // c),
    zero exactly for multiples of c, negative ones included. Whether a bound changed."""
    changed = False
    for atom, (lo, hi) in list(bounds.items()):
        if not (isinstance(atom, tuple) and len(atom) == 4 and atom[:2] == ("term", "Mod")
                and hi is not None and hi <= 0):
            continue
        left, right = atom[2], atom[3]
        if right.terms or right.const <= 0 or left.const or len(left.terms) != 1 or \
                left.terms[0][1] != 1 or not atoms[left.terms[0][0]].integer:
            continue
        x, c = left.terms[0][0], right.const
        x_lo, x_hi = atoms.bound(x, bounds, False), atoms.bound(x, bounds, True)
        new_lo = None if x_lo is None else -((-x_lo) // c) * c
        new_hi = None if x_hi is None else (x_hi // c) * c
        if (new_lo, new_hi) != (x_lo, x_hi):
            bounds[x] = (new_lo, new_hi)
            changed = True
    return changed


__all__ = ["local_bounds"]
