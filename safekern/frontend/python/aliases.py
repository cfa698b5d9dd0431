"""Arrays chosen among parameters, proven at launch by equal shapes (analysis only; for
eliminate.py).

numba's documented heat equation (and every double-buffered stencil) swaps two buffers:

    if i >= len(buf_0):
        return
    for step in range(timesteps):
        if step % 2 == 0:
            data, next_data = buf_0, buf_1      # (as two assignments)
        else:
            data, next_data = buf_1, buf_0
        next_data[i] = data[i - 1] + data[i + 1] ...

`data` is always one of the parameters `buf_0`, `buf_1`, but no linear fact says which, so
`i < len(buf_0)` proves nothing about `data[i]`. Where the launch's arrays have equal shapes the
choice does not matter: a name *every* binding of which is `name = <array parameter>` (an
*alias*, never a parameter itself) has the shape of the first of them in every launch where
all of them have equal shapes on the axes the kernel reads. So the elimination runs a second
time with each alias's `shape[k]` read as its first parameter's (index_forms.Linearizer.aliases);
a check it proves (statically or at launch) that the first run did not is proven at launch, by
its predicates there and the equalities `p.shape[k] == q.shape[k]` (two linear predicates each)
of every axis the second run read through an alias. numba types an alias once, so its
parameters have one type: the same number of dimensions.
"""
from __future__ import annotations

import ast

from .launch import LaunchFact, LaunchPredicate

_ACCESS_KINDS = ("load", "store", "atomic")


def array_aliases(tree, bindings) -> dict:
    """{name: (parameter, ...)}: names bound only to two or more distinct array parameters
    (launch parameters: never rebound) by plain assignments `name = parameter`."""
    found: dict = {}
    for node in (n for stmt in tree for n in ast.walk(stmt)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name):
            found.setdefault(node.targets[0].id, []).append(node.value.id)
    out = {}
    for name, values in found.items():
        params = tuple(dict.fromkeys(values))
        if name in bindings.launch_params or name in bindings.escaping or \
                bindings.counts.get(name) != len(values) or len(params) < 2 or \
                not all(p in bindings.launch_params for p in params):
            continue
        out[name] = params
    return out


def shape_equalities(aliases: dict, axes, launch_params: dict) -> list:
    """`p.shape[k] == first.shape[k]` as two LaunchPredicates, for every alias axis read."""
    out = []
    for name, k in sorted(axes):
        first = aliases[name][0]
        a = LaunchFact("shape", launch_params[first], first, (k,))
        for other in aliases[name][1:]:
            b = LaunchFact("shape", launch_params[other], other, (k,))
            for sign in (1, -1):
                terms = tuple(sorted(((sign, b), (-sign, a)), key=lambda t: t[1].param))
                p = LaunchPredicate(terms, 0)
                if p not in out:
                    out.append(p)
    return out


def by_equal_shapes(rerun, tree, bindings, sites, verdicts: dict, launch_codes: dict):
    """(verdicts, launch codes) with the checks the second run proves (module doc):
    `rerun(representatives)` -> that run's _Eliminator."""
    aliases = array_aliases(tree, bindings)
    if not aliases:
        return verdicts, launch_codes
    second = rerun({name: params[0] for name, params in aliases.items()})
    second_codes = second.launch_verdicts()
    equalities = shape_equalities(aliases, second.lin.alias_axes, bindings.launch_params)
    if not equalities:
        return verdicts, launch_codes
    kinds = {s.code: s.kind for s in sites}
    verdicts, launch_codes = dict(verdicts), dict(launch_codes)
    text = " and ".join(p.text() for p in equalities)
    for code, (status, reason) in second.verdicts.items():
        if status not in ("eliminated", "proven at launch") or \
                kinds.get(code) not in _ACCESS_KINDS or \
                verdicts.get(code, ("checked",))[0] == "eliminated":
            continue
        predicates = list(second_codes.get(code, ())) + equalities
        before = verdicts.get(code)
        launch_codes[code] = list(dict.fromkeys(predicates))
        shown = reason[3:] if status == "proven at launch" else reason
        verdicts[code] = ("proven at launch", f"if {text}, {shown}" + (
            f"; else {before[1]}" if before and before[0] == "hoisted" else ""))
    return verdicts, launch_codes


__all__ = ["array_aliases", "shape_equalities", "by_equal_shapes"]
