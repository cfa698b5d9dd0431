"""Launch proofs by the values of a small loop variable (analysis only; for eliminate.py).

backprop's shared tree reduction (Rodinia), in a 16 x 16 tile with 16 x 16 threads:

    for i in range(1, 5):
        power_two = 1 << i
        if ty % power_two == 0:
            tile[ty + power_two // 2, tx] ...

No linear fact ties `ty`, `1 << i` and the tile's 16 rows: the access is in bounds because `ty`
is a multiple of `power_two`. Proved per value of `i` it is linear: with `i` the constant 1,
`1 << i` is 2, the guard says `ty % 2 == 0`, so `ty` (at most 15 where `blockDim.y <= 16`)
is at most 14 (linear.py rounds the bounds of a multiple), and `ty + 1 <= 15`. So where a launch
proof fails and the index reads an integer loop variable that the facts at the access bound to
at most MAX_VALUES values, the proof is tried again for each value, the variable being that
constant: the index, the extent, and the guards in scope that read the variable (`Guard`, kept
with the facts for this: their facts are read again with the constant), together with
`variable == value`. Every value must be proven; the check is then proven at launch by the
predicates of all of them.

The bound of `ty` needs `blockDim.y <= 16`; a launch proof finds only linear predicates, and
`ty + 1 <= 15` alone would ask `blockDim.y <= 15`. So the per-value proofs may also *assume* the
bounds on launch dimensions that other checks of the kernel are proven at launch with (the
shared tiles' `blockDim.y <= 16`): a check proven with them lists them among its predicates, so
its check is left out only in launches where they hold.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager
from dataclasses import dataclass

from .call_facts import index_form
from .launch import _AXES, _single_dimension_bound
from .linear import Fact, Form
from .trees import walk

MAX_VALUES = 16            # values of a loop variable tried one by one (else: no case split)


@dataclass(frozen=True)
class Guard(Fact):
    """A condition that holds here, or an assignment in force here (`target = test`), that
    reads a loop variable (module doc): no fact of its own (`0 >= 0`), read again where the
    variable is a constant."""

    test: object = None
    negate: bool = False
    target: str | None = None


def guard_names(lin, node, bound=None) -> set:
    """The variables `node`'s value depends on: those it reads and those their definitions
    (`lin.defs`, and `bound`: {name: value} of the assignments in force) read."""
    bound = bound or {}
    seen, todo = set(), [node]
    while todo:
        for n in walk(todo.pop()):
            if isinstance(n, ast.Name) and n.id not in seen:
                seen.add(n.id)
                if n.id in lin.defs:
                    todo.append(lin.defs[n.id])
                if n.id in bound:
                    todo.append(bound[n.id])
    return seen


def _bound(facts) -> dict:
    return {g.target: g.test for g in facts if isinstance(g, Guard) and g.target is not None}


def guards(lin, test, origin: str, negate: bool, facts=(), target=None) -> list:
    """[Guard] of the condition `test` (negated: where it is false), or of the assignment
    `target = test`, if it reads a loop variable (`facts`: those in scope)."""
    deps = guard_names(lin, test, _bound(facts))
    if not deps & set(lin.range_vars) and (target is not None or not _equality(test)):
        return []
    if target is not None:
        deps.add(target)
    return [Guard(Form(), frozenset(deps), origin, False, test, negate, target)]


def _equality(test) -> bool:
    """Does `test` compare with `==` or `!=`? (Its `!=` facts need the bounds in scope: srad's
    `else` of `if ty == 15` says `ty <= 14` only where `ty <= 15` is known.)"""
    return any(isinstance(op, (ast.Eq, ast.NotEq)) for n in walk(test)
               if isinstance(n, ast.Compare) for op in n.ops)


@contextmanager
def constants(lin, values: dict):
    """The names of `values` are those constants in the forms made meanwhile (the exactness
    of substituted definitions is decided again: `1 << i` is exact for a constant `i`)."""
    saved_defs, saved = lin._exact_defs, dict(lin.constants)
    lin._exact_defs = {}
    lin.constants.update(values)
    try:
        yield
    finally:
        lin._exact_defs = saved_defs
        lin.constants.clear()
        lin.constants.update(saved)


def _small_variable(lin, comp, facts):
    """(name, lo, hi) of an integer loop variable `comp` reads (through definitions) that the
    facts bound to at most MAX_VALUES values, or None."""
    local = lin.local_bounds([f for f in facts if not isinstance(f, Guard)])
    for name in sorted(guard_names(lin, comp, _bound(facts)) & set(lin.range_vars)):
        if name not in lin.integers or name in lin.constants:
            continue
        atom = lin.name_atom(name)
        lo, hi = lin.atoms.bound(atom, local, False), lin.atoms.bound(atom, local, True)
        if lo is not None and hi is not None and 0 <= hi - lo < MAX_VALUES:
            return name, lo, hi
    return None


def assumed_bounds(lin, launch_codes: dict) -> list:
    """[(Fact, predicate)]: `blockDim.k <= c` (gridDim) of the predicates found so far."""
    out = []
    for predicates in launch_codes.values():
        for p in predicates:
            dim = _single_dimension_bound(p)
            if dim is None or p in [q for _, q in out]:
                continue
            kind = "blockDim" if dim[0] == "block" else "gridDim"
            atom = lin.atoms.add(("cuda", kind, _AXES[dim[1][0]]), lower=1,
                                 upper=1024 if kind == "blockDim" else 2 ** 31 - 1,
                                 integer=True)
            form = Form.of({atom: -1}, p.const)
            out.append((Fact(form, frozenset(), "the launch's " + p.text()), p))
    return out


def axis_proof(lin, launch, array: str, axis: int, comp, facts, launch_codes):
    """([predicate], [origin]) proving `0 <= comp < array.shape[axis]` at launch where `facts`
    hold, or None: by the launch prover; where it fails, or finds only a block bound tighter
    than the kernel's others (`blockDim.y <= 15` beside a tile's `<= 16`: never kept,
    launch.worth_a_variant), value by value with those bounds assumed (by_values)."""
    index, exact = index_form(lin, comp)
    extent = lin.shape_extent(array, axis)
    first = None           # (predicates, origins) of the launch prover, where it found some
    if index is not None and extent is not None and \
            (exact or lin.exact(comp, facts, index=True)):
        found, used = [], []
        for goal in (index, (extent - index).plus(-1)):
            proof = lin.prove(goal, facts)
            if proof is not None:
                used += [f.origin for f in proof if f.origin]
                continue
            predicates = launch.predicates(goal, facts)
            if predicates is None:
                break
            found += predicates
        else:
            first = found, used
            if not _tighter(found, launch_codes):
                return first
    values = by_values(lin, launch, array, axis, comp, facts, launch_codes)
    return first if values is None else (values[0], [values[1]])


def _tighter(predicates, launch_codes) -> bool:
    """Is one of `predicates` a block bound tighter than one other checks are proven with?"""
    loosest = {}
    for p in (p for ps in launch_codes.values() for p in ps):
        dim = _single_dimension_bound(p)
        if dim is not None:
            loosest[dim] = max(loosest.get(dim, p.const), p.const)
    return any(_single_dimension_bound(p) in loosest and
               p.const < loosest[_single_dimension_bound(p)] for p in predicates)


def by_values(lin, launch, array: str, axis: int, comp, facts, launch_codes):
    """The launch predicates proving `0 <= comp < array.shape[axis]` value by value, with the
    launch dimensions' bounds assumed (module doc), and a text for the reason, or None."""
    small = _small_variable(lin, comp, facts)
    assumed = assumed_bounds(lin, launch_codes)
    if small is None and not assumed:
        return None
    name, lo, hi = small if small is not None else (None, 0, 0)
    plain = [f for f in facts if not isinstance(f, Guard)]
    found = []
    for value in range(lo, hi + 1):
        known = plain if name is None else \
            plain + lin.equal(name, ast.Constant(value), f"{name} = {value}")
        with constants(lin, {} if name is None else {name: value}):
            for g in facts:            # (an assignment in force: a constant with this value)
                if isinstance(g, Guard) and g.target is not None:
                    form = lin.form(g.test)
                    if form is not None and not form.terms and lin.exact(g.test, known):
                        lin.constants[g.target] = form.const
            index, exact = index_form(lin, comp)
            extent = lin.shape_extent(array, axis)
            if index is None or extent is None or not (
                    exact or lin.exact(comp, known, index=True)):
                return None
            proofs = _value_proofs(lin, launch, index, extent, facts, known, assumed)
            if proofs is None:
                return None
            found += [p for p in proofs if p not in found]
    text = "the launch's block bounds" if name is None else \
        f"each value of {name} from {lo} to {hi}"
    return _strongest(found), text


def _value_proofs(lin, launch, index, extent, facts, known, assumed):
    """The predicates of both ends of one value's bounds, or None: proven with the facts and
    the guards read again; else also with the assumed bounds in scope (the guards read again
    with them too), which join the predicates."""
    forms = [index, extent]
    bare = known + _guard_facts(lin, facts, known)
    bare += launch.thread_facts(forms + [f.form for f in bare])
    extra = [f for f, _ in assumed]
    scoped = known + extra + launch.thread_facts(forms + [f.form for f in known + extra])
    scoped += _guard_facts(lin, facts, scoped)
    found = []
    for goal in (index, (extent - index).plus(-1)):
        if lin.prove(goal, bare) is not None:
            continue
        if not assumed:
            return None
        if lin.prove(goal, scoped) is None:
            predicates = launch.predicates(goal, scoped)
            if predicates is None:
                return None
            found += predicates
        found += [p for _, p in assumed]
    return found


def _guard_facts(lin, facts, scope) -> list:
    """The facts of the conditions (Guard) in `facts`, read where `scope` holds."""
    out = []
    for g in facts:
        if isinstance(g, Guard) and g.target is None:
            out += lin.facts(g.test, g.origin, negate=g.negate, scope=scope + out)
    return out


def _strongest(predicates) -> list:
    """Of predicates over the same terms (`x.shape[0] >= gridsize + 1`, `... + 2`, one per
    value), the one with the least constant: it implies the others."""
    best: dict = {}
    for p in predicates:
        if p.terms not in best or p.const < best[p.terms].const:
            best[p.terms] = p
    return list(best.values())


__all__ = ["Guard", "guards", "axis_proof", "by_values", "assumed_bounds", "MAX_VALUES"]
