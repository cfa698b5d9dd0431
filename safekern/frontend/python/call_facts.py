"""What a caller knows about the arrays it passes to a checked device function, and the views
and index forms the elimination reads through (analysis only).

A device function is rewritten knowing nothing of its arguments: `arr[2, 0]` inside
`_gpu(arr)` stays checked even where every caller passes a 3 x 3 window
(`_gpu(a[i - 1:i + 2, j - 1:j + 2])` under `if 1 <= i < a.shape[0] - 1 ...`). So each checked
call site gives its callee **parameter facts** -- `ParamFact(param, axis, extent)`: the array
passed as `param` has exactly `extent` elements on `axis` -- and the backend compiles the
callee specialised for them (its accesses proven with them as facts at its entry, which hold
until the parameter is rebound). Facts come from:

- an array of constant shape (`cuda.local.array((4, 2), ...)`), passed as it is, or through
  integer indices (`vec[k]`: its row, of shape (2,));
- a slice view `a[lo:hi]` (no step) whose ends are proven `0 <= lo <= hi <= a.shape[k]`: its
  extent is then `hi - lo` (numba clamps a slice's ends as Python does; proven inside, they are
  not clamped), when that is a constant. An end proven only by launch predicates (launch.py)
  gives a fact for the launch variant only.

A slice never fails (its ends are clamped), so a load whose index has no integer component is
not a check. `vec[k][0]` reads through a row of `vec`: its extent is `vec.shape[1]` whatever
`k` is (`array_root`). `x % c`, with `c` a positive constant, used as an index is in
[0, c - 1]: an index is an integer (numba refuses any other), and numba's integer `%` is
Python's (`index_form`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import names
from .linear import Fact, Form
from .parse import names_read
from .trees import walk


@dataclass(frozen=True)
class ParamFact:
    """The array passed as parameter `param` has `extent` elements on axis `axis` (at least
    that many, unless `exact`)."""
    param: str
    axis: int
    extent: int
    exact: bool = True

    def text(self) -> str:
        return f"{self.param}.shape[{self.axis}] {'==' if self.exact else '>='} {self.extent}"


def _is_slice(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == names.SLICE


def _is_load(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id in (names.LOAD, names.LOADV)


def _components(index):
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def is_number(lin, node, depth: int = 0) -> bool:
    """Is `node` one number (an index component consuming one axis), not a tuple or a slice?
    Arithmetic gives a number; a name does where it is an integer or bound once to a number."""
    if depth > 8:
        return False
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert))
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Add, ast.Mult)):
            # ((0,) + (1,), (0,) * 2: tuples, two axes)
            return is_number(lin, node.left, depth + 1) and \
                is_number(lin, node.right, depth + 1)
        return not isinstance(node.op, ast.MatMult)
    if isinstance(node, ast.Name):
        if node.id in lin.integers or node.id in lin.constants:
            return True
        value = lin.defs.get(node.id)
        return value is not None and is_number(lin, value, depth + 1)
    form = lin.form(node)
    return form is not None and bool(form.terms) and lin.atoms.integer(form)


def array_root(lin, node):
    """(name, axes consumed) of an array expression reaching a named array through integer
    indices only (`vec`, `vec[k]`, `vec[k][j]`, checked or not), else None: its axis `a` is
    the named array's axis `a + consumed`, whatever the indices' values."""
    consumed = 0
    while True:
        if isinstance(node, ast.Name):
            return node.id, consumed
        if isinstance(node, ast.Subscript):
            array, index = node.value, node.slice
        elif _is_load(node):
            array, index = node.args[0], node.args[1]
        else:
            return None
        comps = _components(index)
        if not all(is_number(lin, c) for c in comps):
            return None
        consumed += len(comps)
        node = array


def index_form(lin, node):
    """(form, exact) of an index component: `x % c` -- or a name bound once to it -- with a
    positive constant `c` is an atom in [0, c - 1] whatever `x` is (module doc); else
    (lin.form(node), None): exactness is the caller's to establish."""
    target = node
    if isinstance(node, ast.Name) and node.id in lin.defs:
        target = lin.defs[node.id]
    division = lin._constant_division(target)
    if division is not None:
        target = division
    if isinstance(target, ast.BinOp) and isinstance(target.op, ast.Mod):
        divisor = lin.form(target.right)
        if divisor is not None and not divisor.terms and divisor.const > 0:
            deps = names_read(node, target)
            atom = lin.atoms.add(("index mod", ast.dump(target)), deps=deps, lower=0,
                                 upper=divisor.const - 1, integer=True, node=None)
            return Form(((atom, 1),)), True
    return lin.form(node), None


class CallSiteFacts:
    """The parameter facts of one device call, in the caller's elimination (see module doc):
    `static` hold at every run; `launch` [(fact, predicates)] hold where the predicates do."""

    def __init__(self, lin, launch_prover):
        self.lin = lin
        self.launch = launch_prover

    def of(self, call: ast.Call, params: list, facts, demands=None):
        """`demands`: param -> {axis: extent} the callee's constant indices need (`demands`)."""
        static, launch = [], []
        for position, arg in enumerate(call.args):
            if position >= len(params) or isinstance(arg, ast.Starred):
                break
            need = (demands or {}).get(params[position], {})
            for fact, predicates in self._argument(params[position], arg, facts, need):
                if predicates:
                    launch.append((fact, predicates))
                else:
                    static.append(fact)
        return static, launch

    def _argument(self, param, arg, facts, need):
        root = array_root(self.lin, arg)
        if root is not None:
            shape = self.lin.shapes.get(root[0])
            if shape is not None:
                return [(ParamFact(param, axis, extent), ())
                        for axis, extent in enumerate(shape[root[1]:])]
            out = []
            for axis, extent in sorted(need.items()):
                goal = self.lin.shape_extent(root[0], axis + root[1]).plus(-extent)
                predicates = self._holds(goal, facts)
                if predicates is not None:
                    out.append((ParamFact(param, axis, extent, exact=False), predicates))
            return out
        if not _is_load(arg) and not isinstance(arg, ast.Subscript):
            return []
        array, index = (arg.args[0], arg.args[1]) if _is_load(arg) else (arg.value, arg.slice)
        if not isinstance(array, ast.Name):
            return []
        out, axis = [], 0
        for pos, comp in enumerate(_components(index)):
            if _is_slice(comp):
                found = self._slice(param, array.id, pos, axis, comp, facts)
                if found is not None:
                    out.append(found)
                axis += 1
            elif not is_number(self.lin, comp):
                return out
        return out

    def _slice(self, param, array, pos, axis, comp, facts):
        """(ParamFact, predicates) of the view's axis `axis` from slice `comp` of the array's
        axis `pos`, or None."""
        if len(comp.args) != 2:
            return None                       # a step: left to numba
        lo, hi = comp.args
        extent = self.lin.shape_extent(array, pos)
        if extent is None:
            return None
        forms = []
        for end in (lo, hi):
            if isinstance(end, ast.Constant) and end.value is None:
                forms.append(None)
                continue
            form = self.lin.form(end)
            if form is None or not self.lin.exact(end, facts):
                return None
            forms.append(form)
        lo_form = forms[0] if forms[0] is not None else Form((), 0)
        hi_form = forms[1] if forms[1] is not None else extent
        size = hi_form - lo_form
        if size.terms or size.const < 0:
            return None
        predicates = []
        for goal in (lo_form, extent - hi_form):
            found = self._holds(goal, facts)
            if found is None:
                return None
            predicates += [p for p in found if p not in predicates]
        return ParamFact(param, axis, size.const), tuple(predicates)

    def _holds(self, goal, facts):
        """() if goal >= 0 is proven, the launch predicates proving it, or None."""
        if self.lin.prove(goal, facts) is not None:
            return ()
        found = self.launch.predicates(goal, facts) if self.launch is not None else None
        return None if found is None else tuple(found)


def entry_facts(lin, param_facts) -> list:
    """The facts a function specialised for `param_facts` starts with."""
    out = []
    for p in param_facts:
        extent = lin.shape_extent(p.param, p.axis)
        origin = f"the call's argument ({p.text()})"
        forms = [extent.plus(-p.extent)] + ([extent.scale(-1).plus(p.extent)] if p.exact else [])
        for form in forms:
            out.append(Fact(form, lin.deps(form), origin))
    return out


def demands(fn: ast.FunctionDef) -> dict:
    """param -> {axis: extent}: the extents the function's constant indices of its array
    parameters need (`cellsize[0]`: 1; `a[2, -1]`: 3 on axis 0, 1 on axis 1)."""
    params = {a.arg for a in fn.args.args}
    out: dict = {}
    for node in walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                node.value.id in params:
            comps = _components(node.slice)
            if not all(isinstance(c, ast.Constant) and type(c.value) is int for c in comps):
                continue
            need = out.setdefault(node.value.id, {})
            for axis, c in enumerate(comps):
                need[axis] = max(need.get(axis, 0), c.value + 1 if c.value >= 0 else -c.value)
    return out


def specialisable(fn: ast.FunctionDef) -> bool:
    """A function that does not call itself by name (a recursive call would run the
    specialisation with other arguments)."""
    return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                   n.func.id == fn.name for n in walk(fn))


def common_facts(a, b) -> tuple:
    """The call facts (static, launch) that hold at two sites: a fact static at both stays
    static, one proven at launch at either needs the predicates of both."""
    def table(found):
        out = {f: () for f in found[0]}
        out.update({f: tuple(p) for f, p in found[1]})
        return out
    ta, tb = table(a), table(b)
    static = [f for f in ta if f in tb and not ta[f] and not tb[f]]
    launch = [(f, tuple(dict.fromkeys(ta[f] + tb[f]))) for f in ta
              if f in tb and (ta[f] or tb[f])]
    return static, launch


def plain_array(node) -> bool:
    """A named array, or a plain subscript of one (`vec[0]` of `vec[0][1] = x`): evaluating
    it records nothing, so a plain store may evaluate it after its value."""
    return isinstance(node, ast.Name) or (
        isinstance(node, ast.Subscript) and
        not any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in walk(node)))



def specialise_calls(calls: dict, found, launch_subset) -> dict:
    """Each checked device call specialised for its call site's facts (`calls` is updated: the
    checked function's), and the launch variant's calls (a new dict), specialised also for
    the facts its launch predicates prove (those in `launch_subset`, or all when None) -- if
    the elimination kept those predicates (found.launch_codes). A callee specialises through
    its `specialised(param_facts)` (the backend's), which returns itself where the facts
    change nothing."""
    variant = dict(calls)
    for name, (static, launch) in (found.call_facts or {}).items():
        dev = calls.get(name)
        specialise = getattr(dev, "specialised", None)
        if specialise is None or not specialisable(dev.parsed.tree):
            continue
        if static:
            calls[name] = variant[name] = specialise(tuple(static))
        kept = [f for f, ps in launch if ("call", name, f) in found.launch_codes and
                (launch_subset is None or set(ps) <= launch_subset)]
        if kept:
            variant[name] = specialise(tuple(static) + tuple(kept))
    return variant


__all__ = ["ParamFact", "CallSiteFacts", "array_root", "index_form", "entry_facts",
           "is_number", "specialisable", "common_facts", "plain_array",
           "specialise_calls", "demands"]
