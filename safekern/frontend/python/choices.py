"""`min(...)`, `max(...)` and `x if c else y` in index arithmetic: *choice atoms*, and proofs by
cases over them (analysis only; used by linear.py's prover and index_forms.py's forms).

The value of `max(a, b)` is one of its arguments; so is the value of `a if c else b`, and there
`c` held for `a` (its negation for `b`). index_forms.py gives such an expression a form with one
atom, a *choice*, which remembers its alternatives (each a Form, with the facts that hold when it
is the one taken). To prove `goal >= 0` with a choice `m` in it (coefficient `k`):

- `m` equals one of the alternatives: proving the goal with `m` replaced by *every* alternative
  (each with its condition's facts) proves it (`k < 0` for `max`: an upper bound of `max(a, b)`
  needs both `a` and `b`; any `k` for `x if c else y`);
- `max(a, b) >= a` and `>= b` (`min` `<=`): with `k > 0` for `max` (`k < 0` for `min`) proving
  it for *one* alternative is enough, as the goal only grows;
- where a choice is in a fact rather than in the goal (`if m < n` with `m = max(i, j)`), the
  facts `m >= a`, `m >= b` (`min`: `m <= a`, `m <= b`) join the proof.

Soundness rests on the value being *exactly* one of the alternatives' values: numba unifies the
alternatives' types first, and int64 with uint64 (or any integer with a float) unifies to
float64, which rounds above 2**53. A choice whose alternatives are all integer forms (Python ints
on the simulator, int64 on the GPU) is exact; one with an alternative of unknown type (a
parameter, a loaded value) is *typed only*: it is exact only where the result is known to be an
integer, i.e. in an index (numba rejects a float index while typing), a range bound, and the
index-proving goals built from them, and index_forms.py gives no comparison or assignment fact
about it.
"""
from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from .trees import walk

MAX_CASES = 16             # at most this many case combinations per goal (else: no case split)


@dataclass(frozen=True)
class Choice:
    kind: str                  # "max" | "min" | "if"
    alts: tuple                # ((Form, (Fact, ...)), ...): an alternative, what holds there
    typed_only: bool           # an alternative is not an integer form (see module doc)
    origin: str = ""           # "max() at line 12": the reason text of its definitional facts


def _first_choice(goal, choices):
    for atom, c in goal.terms:
        if atom in choices:
            return atom, c
    return None, 0


def cases(goal, choices, limit: int = MAX_CASES):
    """The goal's case split: a list of *options*, each a list of (subgoal, extra facts); the
    goal holds if, for one option, every subgoal holds (with its extra facts). None when the
    split has more than `limit` options or subgoals."""
    atom, c = _first_choice(goal, choices)
    if atom is None:
        return [[(goal, ())]]
    choice = choices[atom]
    rest = goal.without(atom)
    subs = []
    for alt, conds in choice.alts:
        sub = cases(rest + alt.scale(c), choices, limit)
        if sub is None:
            return None
        subs.append([[(g, tuple(conds) + tuple(extra)) for g, extra in option]
                     for option in sub])
    every = choice.kind == "if" or (choice.kind == "max") == (c < 0)
    if not every:              # one alternative is enough: any option of any of them
        out = [option for sub in subs for option in sub]
    else:                      # every alternative: one option of each, together
        out = []
        for combo in itertools.product(*subs):
            out.append([part for option in combo for part in option])
            if len(out) > limit:
                return None
    if len(out) > limit or any(len(option) > limit for option in out):
        return None
    return out


def definitional_facts(forms, choices, make_fact) -> list:
    """`m - a >= 0` for each alternative `a` of each `max` choice `m` in `forms` (`a - m >= 0`
    for `min`), nested choices included; `make_fact(form, origin)` builds the Fact."""
    out, seen = [], set()
    todo = [a for form in forms for a in form.atoms if a in choices]
    while todo:
        atom = todo.pop()
        if atom in seen:
            continue
        seen.add(atom)
        choice = choices[atom]
        m = type(choice.alts[0][0])(((atom, 1),))       # (a Form: linear.py imports us)
        for alt, _ in choice.alts:
            todo += [a for a in alt.atoms if a in choices]
            if choice.kind == "max":
                out.append(make_fact(m - alt, choice.origin))
            elif choice.kind == "min":
                out.append(make_fact(alt - m, choice.origin))
    return out


def has_choice(form, choices) -> bool:
    return bool(choices) and any(a in choices for a in form.atoms)





# -- choice expressions (index_forms.Linearizer's part; `lin` is the Linearizer) --------------

def choice_parts(lin, node):
    """(kind, [(alternative expr, condition or None, negated)]) of `min(a, b, ...)`,
    `max(...)` (the builtins, not rebound: `lin.choice_kinds`) and `a if c else b`, else None."""
    kinds = lin.choice_kinds
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("min", "max") and node.func.id in kinds and \
            len(node.args) >= 2 and not node.keywords and \
            not any(isinstance(a, ast.Starred) for a in node.args):
        return node.func.id, [(a, None, False) for a in node.args]
    if isinstance(node, ast.IfExp) and "if" in kinds and \
            not any(isinstance(n, ast.NamedExpr) for n in walk(node)) and \
            all(choice_parts(lin, n) is not None or lin.is_plain_value(n)
                for n in walk(node.test) if isinstance(n, ast.Call)):
        return "if", [(node.body, node.test, False), (node.orelse, node.test, True)]
    return None


def choice_form(lin, node, parts):
    """The Form of a choice expression: one choice atom, or None if an alternative has none."""
    kind, alts = parts
    origin = f"the condition at line {getattr(node, 'lineno', '?')}"
    out, deps = [], set()
    for expr, test, negate in alts:
        form = lin.form(expr)
        if form is None:
            return None
        conds = () if test is None else tuple(lin.facts(test, origin, negate=negate))
        out.append((form, conds))
        deps |= lin.deps(form)
        for f in conds:
            deps |= f.deps
    atoms = lin.atoms
    lows = [atoms.minimum(f) for f, _ in out]
    highs = [atoms.maximum(f) for f, _ in out]
    known_low, known_high = [x for x in lows if x is not None], [x for x in highs if x is not None]
    every_low, every_high = len(known_low) == len(out), len(known_high) == len(out)
    if kind == "max":
        lower = max(known_low) if known_low else None
        upper = max(highs) if every_high else None
    elif kind == "min":
        lower = min(lows) if every_low else None
        upper = min(known_high) if known_high else None
    else:
        lower = min(lows) if every_low else None
        upper = max(highs) if every_high else None
    typed_only = not all(atoms.integer(f) for f, _ in out)
    key = ("choice", kind, tuple(out))
    atom = atoms.add(key, deps=deps, lower=lower, upper=upper, integer=not typed_only,
                     node=node)
    if atom not in atoms.choices:
        what = f"{kind}()" if kind != "if" else "the conditional expression"
        atoms.choices[atom] = Choice(kind, tuple(out), typed_only,
                                     f"{what} at line {getattr(node, 'lineno', '?')}")
    return type(out[0][0])(((atom, 1),))


def choice_interval(lin, parts, local):
    """(lo, hi) of a choice expression from its alternatives' intervals, or None."""
    kind, alts = parts
    ivs = [lin.interval(expr, local) for expr, _, _ in alts]
    if any(iv is None for iv in ivs):
        return None
    los, his = [iv[0] for iv in ivs], [iv[1] for iv in ivs]
    if kind == "max":
        return max(los), max(his)
    if kind == "min":
        return min(los), min(his)
    return min(los), max(his)


def typed_only(form, choices) -> bool:
    """Does the form hold a choice that is exact only as an index (see module doc)?"""
    return any(a in choices and choices[a].typed_only for a in form.atoms)
__all__ = ["Choice", "cases", "definitional_facts", "has_choice", "choice_parts", "choice_form",
           "choice_interval", "typed_only", "MAX_CASES"]
