"""Loop versioning: check an innermost range loop's accesses once, before the loop (a rewrite).

In an innermost `for v in range(lo, hi[, step])` loop with a positive step, an access whose index
component is `c*v + rest` moves monotonically with v, so it is in bounds on every iteration if
it is at the first value of v and at `hi - 1` (which the last value does not exceed). The loop
becomes

    if lo >= hi or (<those accesses are in bounds at both ends>):
        <the loop with those accesses unchecked>
    else:
        <the loop, every check in place>

so a failing access is still caught at the iteration where it happens, with its index.

What this assumes, and checks:
- v takes the values of the range: it is not reassigned in the body (`k += 1`, `k, j = j, k`, an
  inner loop reusing the name);
- `rest`, lo, hi and the array are the same on every iteration: no name they use is assigned in
  the body (`a = b` in the loop), and they are pure (evaluating them again before the loop reads
  no memory and calls nothing);
- the step is positive (negative steps are not versioned);
- the body has no barrier and calls no device function (which could not be copied safely);
- the end tests compute exactly what they mean: every test is exact arithmetic of bounded
  values (index_forms.py), or compares one unbounded value (a loaded range bound, a
  parameter) alone with an exact expression (`hi <= _sk_extent(x, 0)` for `x[k]`), so nothing
  in them wraps around, on the GPU or on the simulator;
- lo >= hi (an empty range) runs the copy without checks, which then runs no iteration.
"""
from __future__ import annotations

import ast
import copy

from . import names
from .bindings import assigned
from .index_forms import COMPARE_EXACT, WIDE
from .linear import Form
from .parse import names_read
from .transformer import Transformer
from .trees import copy_tree, walk
from .unchecked import Unchecker, atomic_operands_may_fail, is_check_call

LOOP_REASON = "checked once before the loop at line {line} (bounds at the first and last " \
              "iteration); the loop runs with checks when that fails"


class _Substitute(Transformer):
    """Every `name` read replaced by a copy of `value`. (One class for every call: a class
    made per call would stay in the visitors' method table, visitor._METHODS, for good.)"""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        return copy.deepcopy(self.value) if node.id == self.name else node


def _substitute(expr, name, value):
    return _Substitute(name, value).visit(copy.deepcopy(expr))


class LoopVersioner:
    def __init__(self, lin, bindings, resolver, parsed, *, components, mark, flag_tested):
        self.lin = lin
        self.b = bindings
        self.resolver = resolver
        self.parsed = parsed
        self.components = components      # check call -> [(axis, component)] or None
        self.mark = mark                  # mark(call, status, reason)
        self.flag_tested = flag_tested
        self.checked_copies: set[int] = set()   # id()s of the loops kept as the checked copy

    def version(self, loop: ast.For, rng, inner) -> ast.stmt:
        """The loop, or `if <end tests>: <fast copy> else: <loop>` (see module doc)."""
        if any(isinstance(n, (ast.For, ast.While)) for s in loop.body for n in walk(s)):
            return loop                  # innermost loops only
        if self.has_barrier_or_device_call(loop):
            return loop
        v, lo, hi, _ = rng
        bound = assigned(loop.body)
        if any(isinstance(n, ast.Call) for s in loop.body for n in walk(s)):
            bound |= self.b.escaping     # (a nested function's nonlocal names)
        if v in bound:
            return loop     # `k += 1` in the body: v leaves [lo, hi), the end tests prove nothing
        bound |= {v}
        if not self._plain_name_expr(lo, bound) or not self._plain_name_expr(hi, bound):
            return loop
        conditions, covered = [], []
        statements = {id(n.value) for s in loop.body for n in walk(s)
                      if isinstance(n, ast.Expr)}
        for call in [n for s in loop.body for n in walk(s) if is_check_call(n)]:
            if call.func.id.startswith(names.ATOMIC) and (atomic_operands_may_fail(call) or (
                    self.flag_tested and id(call) not in statements)):
                continue     # (where the flag must be tested, only an atomic statement can be)
            conds = self._cover(call, v, lo, hi, bound, inner)
            if conds is not None:
                covered.append(call)
                conditions += [c for c in conds if ast.dump(c) not in
                               {ast.dump(x) for x in conditions}]
        if not covered:
            return loop
        codes = {c.args[-3].value for c in covered}
        fast = Unchecker(codes, flag_tested=self.flag_tested).visit(copy_tree(loop))
        for call in covered:
            self.mark(call, "hoisted", LOOP_REASON.format(line=loop.lineno))
        if not conditions:          # proven at every iteration after all: no copy needed
            return fast
        empty = ast.Compare(copy.deepcopy(lo), [ast.GtE()], [copy.deepcopy(hi)])
        test = ast.BoolOp(ast.Or(), [empty, ast.BoolOp(ast.And(), conditions)
                                     if len(conditions) > 1 else conditions[0]])
        self.checked_copies.add(id(loop))   # (not worth registers for branch-free loads)
        # (an attribute, not a statement: the rewrite's source stays as it was; copies of the
        # tree keep it; the backend compiles the copy rolled: cold_loops.py)
        setattr(loop, names.COLD_LOOP, True)
        out = ast.If(test=test, body=[fast], orelse=[loop])
        for n in walk(out.test):
            ast.copy_location(n, loop)
        return ast.copy_location(out, loop)

    def has_barrier_or_device_call(self, loop) -> bool:
        for n in walk(loop):
            if isinstance(n, ast.Call) and not is_check_call(n):
                if isinstance(n.func, ast.Name) and n.func.id.startswith(names.DEVICE):
                    return True
                role = self.resolver.classify_call(n.func, self.parsed)
                if role is not None and role[0] in ("barrier", "device", "plain_device"):
                    return True
        return False

    def _plain_name_expr(self, node, bound) -> bool:
        """Cheap, pure, integer, and unchanged by the loop: can be evaluated again before it."""
        for n in walk(node):
            if isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)):
                return False
            if isinstance(n, ast.Name) and n.id in bound:
                return False
            if isinstance(n, ast.Call) and not self.lin.is_plain_value(n):
                return False
            if isinstance(n, ast.Subscript) and self.lin.form(n) is None:
                return False
        return self.lin.form(node) is not None

    def _cover(self, call, v, lo, hi, bound, inner):
        """Tests (before the loop) under which `call` cannot fail, or None."""
        if not isinstance(call.args[0], ast.Name) or call.args[0].id in bound:
            return None
        comps = self.components(call)
        if comps is None:
            return None
        array = call.args[0].id
        vform = self.lin.form(ast.Name(v, ast.Load()))
        vatom = vform.atoms[0]
        lo_form, hi_form = self.lin.form(lo), self.lin.form(hi)
        conds = []
        for axis, comp in comps:
            index = self.lin.form(comp)
            extent = self.lin.shape_extent(array, axis)
            if index is None or extent is None or not self.lin.exact(comp, inner, index=True):
                return None
            if self.lin.in_bounds(index, extent, inner) is not None:
                continue
            if not self._int_component(comp, v):
                return None
            rest = index.without(vatom)
            if self.lin.deps(rest) & bound:
                return None               # depends on something else the loop changes
            c = index.coeff(vatom)
            first_form = rest + lo_form.scale(c)
            last_form = rest + hi_form.plus(-1).scale(c)
            low_at, high_at = (first_form, last_form) if c >= 0 else (last_form, first_form)
            first = _substitute(comp, v, lo)
            last = _substitute(comp, v, ast.BinOp(copy.deepcopy(hi), ast.Sub(), ast.Constant(1)))
            low_expr, high_expr = (first, last) if c >= 0 else (last, first)
            extent_expr = self._extent_expr(array, axis)
            # Either end may be proven already (threadIdx >= 0): test only what is not.
            if self.lin.prove(low_at, inner) is None:
                test = self._test(low_expr, low_at, inner, upper=None)
                if test is None:
                    return None
                conds.append(test)
            if self.lin.prove((extent - high_at).plus(-1), inner) is None:
                test = self._test(high_expr, high_at, inner, upper=(extent, extent_expr))
                if test is None:
                    return None
                conds.append(test)
        if any(names_read(c) & bound for c in conds):
            return None       # a test would read a name before the loop assigns it
        return conds

    def _test(self, expr, form, inner, upper):
        """`expr >= 0` (upper None) or `expr < extent` as an exact test, or None."""
        local = self.lin.local_bounds(inner)
        if self.lin.exact(expr, inner):
            if upper is None:
                return ast.Compare(expr, [ast.GtE()], [ast.Constant(0)])
            return ast.Compare(expr, [ast.Lt()], [upper[1]])
        # One unbounded value (a loaded or parameter range bound): compare it alone.
        goal = form if upper is None else (upper[0] - form).plus(-1)     # goal >= 0
        unknown = [a for a in goal.atoms if self.lin.magnitude(Form(((a, 1),)), local) is None]
        if len(unknown) != 1 or abs(goal.coeff(unknown[0])) != 1:
            return None
        u = unknown[0]
        c = goal.coeff(u)
        rest = goal.without(u)
        # rest computes without wrapping, and its value is exact in float64 (numba compares a
        # uint64 u with an int64 in float64)
        size = self.lin.magnitude(rest, local)
        low, high = self.lin.atoms.minimum(rest, local), self.lin.atoms.maximum(rest, local)
        if size is None or size >= WIDE or max(-low, high) >= COMPARE_EXACT or any(
                a[0] == "term" for a in rest.atoms):
            return None
        node = copy.deepcopy(self.lin.atoms[u].node)
        if node is None:
            return None
        bound = self.lin.to_expr(rest.scale(-1) if c > 0 else rest)
        if bound is None:
            return None       # an atom without an expression (a launch dimension): no test
        if c > 0:             # u + rest >= 0  ->  u >= -rest
            return ast.Compare(node, [ast.GtE()], [bound])
        return ast.Compare(node, [ast.LtE()], [bound])   # rest - u >= 0

    def _int_component(self, comp, v) -> bool:
        """Comparing the component with an integer types: a bare name might be a tuple or a
        slice variable, so it must be the loop variable or surely an integer; an arithmetic
        expression used as an index is a number already."""
        if isinstance(comp, ast.Name):
            return comp.id == v or comp.id in self.b.integers or comp.id in self.b.constants
        return True

    def _extent_expr(self, array, axis):
        shape = self.b.shapes.get(array)
        if shape is not None:
            return ast.Constant(shape[axis])
        return ast.Call(ast.Name(names.EXTENT, ast.Load()),
                        [ast.Name(array, ast.Load()), ast.Constant(axis)], [])


__all__ = ["LoopVersioner", "LOOP_REASON"]
