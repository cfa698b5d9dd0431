"""Checked device functions specialised for what a call site knows of its arguments
(frontend/python/call_facts.py): the same function, rewritten with its parameters' facts at
its entry, so accesses they prove run unchecked. One specialisation per distinct set of facts;
none where the facts prove nothing more (the function itself is called then: no second
compile)."""
from __future__ import annotations

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
    with function._lock:
        cache = function.__dict__.setdefault("_specialised", {})
        hit = cache.get(param_facts)
        if hit is None:
            # Mutual recursion (f calls g calls f) may ask for this one while it is being
            # rewritten: the function itself answers meanwhile (always sound).
            cache[param_facts] = function
            build = SpecialisedBuild(function.parsed, param_facts, name=function.__qualname__,
                                     py_func=function.py_func, device=True,
                                     options=function._options, sigs=None, specialized=False)
            special = cls(function.py_func, None, function._options, parsed=function.parsed,
                          build=build)
            special.specialised_from = function
            same = special.rewritten.source == function.rewritten.source and all(
                special.rewritten.device_calls.get(n) is d
                for n, d in function.rewritten.device_calls.items())
            hit = cache[param_facts] = function if same else special
        return hit


__all__ = ["SpecialisedBuild", "specialised"]
