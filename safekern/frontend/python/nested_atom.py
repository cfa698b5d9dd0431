"""An atom made of forms and facts, hashed once (linear.Atoms hands them out)."""
from __future__ import annotations


#: The kinds of atom made of forms and facts.
NESTED = frozenset(("term", "choice"))


class NestedAtom(tuple):
    """An atom made of forms and facts (an opaque term `("term", "Mult", i, j)`, a choice):
    its hash kept once made. Each dict lookup and set test of the provers hashes the atoms of
    a form, and a plain tuple hashes its forms and facts again each time (a choice's facts:
    their dataclass hash, all the way down); Atoms.add hands out one such object per atom,
    so lookups find it by identity too. Equal, and of equal hash, to the plain tuple."""

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = tuple.__hash__(self)
        return h

    def __reduce__(self):
        return NestedAtom, (tuple(self),)     # (not the hash: a str's differs per process)


__all__ = ["NESTED", "NestedAtom"]
