"""Checked device functions specialised for what a call site knows of its arguments
(frontend/python/call_facts.py): the same function, rewritten with its parameters' facts at
its entry, so accesses they prove run unchecked. One specialisation per distinct set of facts;
none where the facts prove nothing more (the function itself is called then: no second
compile)."""
from __future__ import annotations

import dataclasses

from .build import Build


class SpecialisedBuild(Build):
    """A device function's Build whose rewrite starts from `param_facts`."""

    def __init__(self, parsed, param_facts: tuple, **kwargs):
        self.param_facts = param_facts       # (read by rewrite(), called by Build.__init__)
        super().__init__(parsed, **kwargs)


def specialised(function, param_facts: tuple):
    """`function` (a CheckedDeviceFunction) rewritten for `param_facts`, or `function` itself
    if that changes nothing."""
    cls = type(function)
    with function.build.lock:
        cache = function.__dict__.setdefault("_specialised", {})
        hit = cache.get(param_facts)
        if hit is None:
            # Mutual recursion (f calls g calls f) may ask for this one while it is being
            # rewritten: the function itself answers meanwhile (always sound).
            cache[param_facts] = function
            build = SpecialisedBuild(function.parsed, param_facts, name=function.__qualname__,
                                     py_func=function.py_func, device=True,
                                     options=function.options, sigs=None, specialized=False)
            special = cls(function.py_func, None, function.options, parsed=function.parsed,
                          build=build)
            special.specialised_from = function
            same = special.rewritten.source == function.rewritten.source and all(
                special.rewritten.device_calls.get(n) is d
                for n, d in function.rewritten.device_calls.items())
            hit = cache[param_facts] = function if same else special
        return hit


#: Of one site's statuses in several specialisations, the one that says least.
_RANK = {"checked": 0, "unchecked": 0, "proven at launch": 1, "hoisted": 2, "eliminated": 3}


def _callee_entries(rewritten, own_entries, seen_ids) -> dict:
    """(file, line, col, code) -> the entry of each site of the checked device functions
    `rewritten` calls, at any depth, merged over their specialisations (least proven)."""
    out = {}
    todo = list(rewritten.device_calls.values())
    while todo:
        fn = todo.pop(0)
        if id(fn) in seen_ids or not hasattr(fn, "own_report_entries"):
            continue
        seen_ids.add(id(fn))
        for e in own_entries(fn):
            key = (e.filename, e.lineno, e.col, e.code)
            before = out.get(key)
            if before is None or _RANK.get(e.status.value, 0) < _RANK.get(before.status.value, 0):
                out[key] = e
        todo += list(fn.rewritten.device_calls.values())
    return out


def callee_entries(kernel) -> list:
    """The report entries of the checked device functions a kernel calls, each site once: a
    site checked in the checked kernel's callee but proven in its launch variant's
    (specialised for facts its launch predicates prove) is "proven at launch"."""
    own = type(kernel).own_report_entries
    checked = _callee_entries(kernel.rewritten, own, {id(kernel)})
    variant = kernel.rewritten.launch_variant
    if variant is None:
        return list(checked.values())
    proven = _callee_entries(variant, own, {id(kernel)})
    predicates = " and ".join(p.text() for p in kernel.rewritten.launch_predicates)
    out = []
    for key, e in checked.items():
        v = proven.get(key)
        if e.status.value in ("checked", "hoisted") and v is not None and \
                v.status.value == "eliminated":
            # (hoisted in the checked kernel's callee: that is what runs where they fail)
            otherwise = f"; else {e.reason}" if e.status.value == "hoisted" else ""
            e = dataclasses.replace(e, status="proven at launch", predicate=predicates,
                                    reason=f"if {predicates}: {v.reason} (the callee "
                                           f"specialised for the call's arguments){otherwise}")
        out.append(e)
    return out


__all__ = ["SpecialisedBuild", "specialised", "callee_entries"]
