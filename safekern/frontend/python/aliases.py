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

from .index_forms import SCALAR_MAX
from .launch import LaunchFact, LaunchPredicate
from .unchecked import is_check_call
from .trees import walk

_ACCESS_KINDS = ("load", "store", "atomic")


def array_aliases(tree, bindings) -> dict:
    """{name: (parameter, ...)}: names bound only to two or more distinct array parameters
    (launch parameters: never rebound) by plain assignments `name = parameter`."""
    found: dict = {}
    for node in (n for stmt in tree for n in walk(stmt)):
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


def _arrays(tree) -> set:
    """Names used as arrays: subscripted, an attribute's base (`a.shape`), a check's array,
    `len`'s argument (a scalar parameter is none of these)."""
    out = set()
    for n in (n for stmt in tree for n in walk(stmt)):
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name):
            out.add(n.value.id)
        elif isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name) and \
                isinstance(n.func, ast.Name) and (n.func.id == "len" or is_check_call(n)):
            out.add(n.args[0].id)
    return out


def _improved(second, open_sites: list, assumed: list, verdicts: dict, launch_codes: dict):
    """The open checks the run `second` proves, proven at launch (with `assumed`); those
    leave `open_sites`."""
    second_codes = second.launch_verdicts()
    text = " and ".join(p.text() for p in assumed)
    for code in list(open_sites):
        status, reason = second.verdicts.get(code, ("checked", ""))
        if status not in ("eliminated", "proven at launch"):
            continue
        open_sites.remove(code)
        before = verdicts.get(code)
        launch_codes[code] = list(dict.fromkeys(list(second_codes.get(code, ())) + assumed))
        shown = reason[3:] if status == "proven at launch" else reason
        verdicts[code] = ("proven at launch", f"if {text}, {shown}" + (
            f"; else {before[1]}" if before and before[0] == "hoisted" else ""))


def _divided_only(tree) -> set:
    """Names read only as operands of `/`: a float quotient whatever they are, so their
    bounds prove no index -- and a float scalar's bound never holds at a launch (hotspot's
    `step / cap`), which would keep every check proven with it checked."""
    nodes = [n for stmt in tree for n in walk(stmt)]
    divided, operands = set(), set()        # operands: the `/`s' Name nodes (by identity)
    for node in nodes:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            for o in (node.left, node.right):
                if isinstance(o, ast.Name):
                    divided.add(o.id)
                    operands.add(id(o))
    other = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
             and id(n) not in operands}
    return divided - other


def scalar_bounds(scalars, launch_params: dict) -> list:
    """`-SCALAR_MAX <= s <= SCALAR_MAX`, `s` a Python int, for each scalar read."""
    out = []
    for name in sorted(scalars):
        fact = LaunchFact("pyint", launch_params[name], name, ())
        out += [LaunchPredicate(((1, fact),), SCALAR_MAX),
                LaunchPredicate(((-1, fact),), SCALAR_MAX)]
    return out


def by_assumptions(rerun, tree, bindings, sites, first, verdicts: dict, launch_codes: dict):
    """(verdicts, launch codes) with the checks the second run proves (module doc):
    `rerun(representatives, scalars, codes)` -> that run's _Eliminator, proving only `codes`;
    `first`: the first run's."""
    kinds = {s.code: s.kind for s in sites}
    # (Equal shapes may replace predicates of the first run: there, an alias's shape is an
    # atom no launch fact bounds, whose predicates -- `timesteps <= -1` -- hardly ever hold.)
    open_sites = [c for c, k in kinds.items() if k in _ACCESS_KINDS and
                  verdicts.get(c, ("checked",))[0] != "eliminated"]
    if not open_sites:
        return verdicts, launch_codes
    aliases = array_aliases(tree, bindings)
    scalars = {a[1] for a in first.lin.atoms.info if a[0] == "name" and
               a[1] in bindings.launch_params and a[1] not in first.lin.integers} - \
        _arrays(tree) - {p for params in aliases.values() for p in params} - \
        _divided_only(tree)
    if not aliases and not scalars:
        return verdicts, launch_codes
    reps = {name: params[0] for name, params in aliases.items()}
    verdicts, launch_codes = dict(verdicts), dict(launch_codes)
    # Equal shapes first; then, for what is still open, bounded scalars too: a check proven
    # without the scalars' predicates does not take them.
    for stage in ([(reps, set())] if reps else []) + ([(reps, scalars)] if scalars else []):
        if stage[1]:                # bounded scalars: only for checks still checked
            open_sites[:] = [c for c in open_sites if c not in launch_codes]
        if not open_sites:
            break                   # (a run proving nothing changes nothing)
        second = rerun(*stage, set(open_sites))
        assumed = shape_equalities(aliases, second.lin.alias_axes, bindings.launch_params) + \
            scalar_bounds(second.lin.scalars_read, bindings.launch_params)
        if assumed:
            _improved(second, open_sites, assumed, verdicts, launch_codes)
    return verdicts, launch_codes


__all__ = ["array_aliases", "shape_equalities", "scalar_bounds", "by_assumptions"]
