"""The launch prover's search as it was before it was made cheap (frontend/python/launch.py):
every combination of at most two facts subtracted from the goal as forms, each offered to
`_split`. Tests compare the memoised, pre-filtered search with it."""
from __future__ import annotations

import itertools

from safekern.frontend.python.launch import _scaled


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
        found = prover._split(rest, local)
        if found is None:
            continue
        seen = weakest.get(found[0].terms)
        if seen is None or found[0].const > seen[0].const:
            weakest[found[0].terms] = found
    for predicate, pure in weakest.values():
        rank = (not pure, sum(f.kind in ("block", "grid", "gridsize") for _, f in predicate.terms),
                len(predicate.terms), abs(predicate.const))
        if best is None or rank < best_rank:
            best, best_rank = predicate, rank
    return best


__all__ = ["reference_predicate"]
