"""The launch prover's search as it was before it was made cheap (frontend/python/launch.py):
every combination of at most two facts subtracted from the goal as forms, each split into its
launch part and the rest (`reference_split`). Tests compare the memoised, pre-filtered,
one-pass search with it."""
from __future__ import annotations

import itertools

from safekern.frontend.python.launch import (_HOPELESS, _WORST_CASE, LaunchPredicate, _scaled,
                                             predicate_rank, purity)
from safekern.frontend.python.linear import Form

OFFERED: list = []      # every rest reference_split was given (tests count them)


def reference_split(prover, rest: Form, local):
    """(predicate, its purity: launch.purity), or None: the search's step as it was, over a
    whole Form."""
    OFFERED.append(rest)
    launch, other, atoms = {}, {}, {}
    for atom, c in rest.terms:
        fact = prover._launch_fact(atom)
        if fact is not None:
            launch[fact] = launch.get(fact, 0) + c
            atoms[fact] = atom
        else:
            other[atom] = c
    launch = {f: c for f, c in launch.items() if c}
    if not launch:
        return None
    low = prover.atoms.minimum(Form(tuple(other.items())), local)
    if low is None or rest.const + low < -_HOPELESS or low < -_WORST_CASE:
        return None
    top = prover.atoms.maximum(Form(tuple((atoms[f], c) for f, c in launch.items())))
    if top is not None and top + rest.const + low < 0:
        return None
    shapes = [c for f, c in launch.items() if f.kind == "shape"]
    if shapes and max(launch.values()) < 0:
        return None
    terms = tuple(sorted(((c, f) for f, c in launch.items()),
                         key=lambda t: (t[1].kind, t[1].param or 0, t[1].axis)))
    return LaunchPredicate(terms, rest.const + low), purity(bool(other), low)


def reference_predicate(prover, goal, facts):
    """LaunchProver.predicate(goal, facts) by the plain search (see the module doc)."""
    facts = list(facts) + prover.thread_facts([goal] + [f.form for f in facts])
    facts += _scaled(goal, facts)
    useful = list({(f.form, f.strict): f for f in facts}.values())
    local = prover.lin.prover.local_bounds(useful)
    best, best_rank, weakest = None, None, {}
    for combo in itertools.chain([()], ((f,) for f in useful),
                                 itertools.combinations(useful, 2)):
        rest = goal.plus(1) if any(f.strict for f in combo) else goal
        for f in combo:
            rest = rest - f.form
        found = reference_split(prover, rest, local)
        if found is None:
            continue
        seen = weakest.get(found[0].terms)
        if seen is None or found[0].const > seen[0].const or (
                found[0].const == seen[0].const and found[1] < seen[1]):
            weakest[found[0].terms] = found
    for predicate, level in weakest.values():
        rank = predicate_rank(predicate, level)
        if best is None or rank < best_rank:
            best, best_rank = predicate, rank
    return best


__all__ = ["reference_predicate", "reference_split", "OFFERED"]
