"""Drop checks that cannot fail, and check loop accesses once before the loop where possible.

A pure pass from the checked tree (after `BoundsCheckRewriter`, before the failure exits) to a
new tree:

- **Eliminate.** A check call whose every index component is proven in bounds by what the code
  already compared on the way -- `if i < a.shape[0]`, `for k in range(a.shape[1])`, `if i >= n:
  return` with `n = a.shape[0]`, `0 <= threadIdx`, constant shapes of shared/local arrays --
  becomes the plain subscript (or the plain atomic). Only comparisons whose variables are not
  reassigned between the comparison and the access count.
- **Version loops.** In an innermost `for v in range(lo, hi[, step])` loop (positive step), an
  access whose index is `c*v + (terms the loop does not change)` is in bounds on every iteration
  if it is at the first and the last value of `v`. The loop becomes

      if lo >= hi or (<those accesses are in bounds at both ends>):
          <the loop with those accesses unchecked>
      else:
          <the loop, every check in place>

  so a failing access is still caught at the iteration where it happens, with its index: the
  checked loop runs whenever any check could fail.

Nothing that can fail is dropped: a site is eliminated only on a proof, and a versioned site
keeps its check on the path where the proof is missing. `check_report()` lists each site as
"checked", "eliminated" (reason: the comparisons that prove it) or "hoisted".
"""
from __future__ import annotations

import ast
import copy

from . import names
from .barriers import may_fail
from .linear import Fact, Form, Linearizer

_LOOP_REASON = "checked once before the loop at line {line} (bounds at the first and last " \
               "iteration); the loop runs with checks when that fails"


# -- what the function binds ------------------------------------------------------------------------


def _bound_names(node) -> list[str]:
    """Names bound by `node` and everything inside it (assignments, loop targets, ...)."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.append(n.id)
        elif isinstance(n, ast.arg):
            out.append(n.arg)
    return out


def assigned(nodes) -> set[str]:
    out = set()
    for node in nodes if isinstance(nodes, list) else [nodes]:
        out.update(_bound_names(node))
    return out


def _is_check_call(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id in (names.LOAD, names.STORE) or node.func.id.startswith(names.ATOMIC))


def _exits(body) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Continue, ast.Break, ast.Raise))


class _Analysis:
    """Function-wide facts: single definitions, constants, constant-shaped arrays, int names."""

    def __init__(self, fn: ast.FunctionDef, body: list, parsed, is_cuda):
        self.is_cuda = is_cuda
        self.body = body
        params = {a.arg for a in fn.args.args + fn.args.posonlyargs}
        counts: dict[str, int] = {}
        single: dict[str, ast.expr] = {}
        for stmt in body:
            for node in ast.walk(stmt):
                for name, value in self._bindings(node):
                    counts[name] = counts.get(name, 0) + 1
                    single[name] = value
        self.counts = counts
        scope = dict(parsed.globals)
        scope.update(parsed.closure)
        self.constants = {k: v for k, v in scope.items()
                          if type(v) is int and k not in counts and k not in params}
        self.range_ok = "range" not in counts and "range" not in scope
        never = lambda n: n not in counts      # noqa: E731  (params and globals)
        # Definitions: bound once, to an expression of names that are never rebound.
        self.defs: dict[str, ast.expr] = {}
        changed = True
        candidates = {n: v for n, v in single.items()
                      if counts[n] == 1 and n not in params and v is not None}
        while changed:
            changed = False
            for name, value in candidates.items():
                if name in self.defs:
                    continue
                used = {x.id for x in ast.walk(value) if isinstance(x, ast.Name)}
                if all(never(u) or u in self.defs for u in used) and _pure(value):
                    self.defs[name] = value
                    changed = True
        self.shapes = {}
        for name, value in self.defs.items():
            shape = self._constant_shape(value)
            if shape is not None:
                self.shapes[name] = shape
        self.int_names = self._int_names(body)

    def _bindings(self, node):
        """(name, value or None) for each binding `node` makes."""
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, node.value
                elif isinstance(target, (ast.Tuple, ast.List)):
                    for pos, elt in enumerate(target.elts):
                        if isinstance(elt, ast.Name):
                            yield elt.id, _unpacked(node.value, pos, len(target.elts))
                        else:
                            for name in _bound_names(elt):
                                yield name, None
                else:
                    for name in _bound_names(target):
                        yield name, None
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            target = node.target
            for name in _bound_names(target):
                yield name, None
        elif isinstance(node, (ast.With,)):
            for item in node.items:
                if item.optional_vars is not None:
                    for name in _bound_names(item.optional_vars):
                        yield name, None
        elif isinstance(node, (ast.FunctionDef, ast.Lambda, ast.comprehension)):
            for name in _bound_names(node.args if hasattr(node, "args") else node.target):
                yield name, None

    def _constant_shape(self, value):
        """(extents...) of `cuda.shared.array(shape, dtype)` / `cuda.local.array(...)`."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and
                value.func.attr == "array" and isinstance(value.func.value, ast.Attribute) and
                value.func.value.attr in ("shared", "local") and
                self.is_cuda(value.func.value.value)):
            return None
        shape = value.args[0] if value.args else None
        for kw in value.keywords:
            if kw.arg == "shape":
                shape = kw.value
        parts = shape.elts if isinstance(shape, ast.Tuple) else [shape]
        out = []
        for p in parts:
            v = self._constant(p)
            if v is None or v < 0:
                return None
            out.append(v)
        return tuple(out)

    def _constant(self, node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        return None

    def _int_names(self, body) -> set[str]:
        """Names every binding of which is an integer expression (greatest fixed point)."""
        values: dict[str, list] = {}
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                    ok = self.range_ok and _is_range(node.iter)
                    values.setdefault(node.target.id, []).append(ok or None)
                elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                    values.setdefault(node.target.id, []).append(node.value)
                else:
                    for name, value in self._bindings(node):
                        values.setdefault(name, []).append(value)
        ints = set(values)
        changed = True
        while changed:
            changed = False
            for name in list(ints):
                if not all(v is True or (v is not None and v is not False and
                                         self._is_int_expr(v, ints))
                           for v in values[name]):
                    ints.discard(name)
                    changed = True
        return ints

    def _is_int_expr(self, node, ints) -> bool:
        if isinstance(node, ast.Constant):
            return type(node.value) is int
        if isinstance(node, ast.Name):
            return node.id in ints or node.id in self.constants
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                                ast.FloorDiv, ast.Mod)):
            return self._is_int_expr(node.left, ints) and self._is_int_expr(node.right, ints)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._is_int_expr(node.operand, ints)
        if isinstance(node, ast.Attribute):       # cuda.threadIdx.x
            return isinstance(node.value, ast.Attribute) and node.attr in "xyz" and \
                node.value.attr in ("threadIdx", "blockIdx", "blockDim", "gridDim") and \
                self.is_cuda(node.value.value)
        if isinstance(node, ast.Subscript):       # a.shape[0], cuda.grid(2)[k]
            return (isinstance(node.value, ast.Attribute) and node.value.attr == "shape") or \
                _is_grid_call(node.value, self.is_cuda, scalar=False)
        if isinstance(node, ast.Call):
            return _is_grid_call(node, self.is_cuda, scalar=True)
        return False


def _unpacked(value, pos, count):
    """`n, m = a.shape` / `x, y = cuda.grid(2)`: element `pos` as an expression."""
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == count:
        return value.elts[pos]
    if isinstance(value, ast.Attribute) and value.attr == "shape" or isinstance(value, ast.Call):
        return ast.Subscript(value, ast.Constant(pos), ast.Load())
    return None


def _is_grid_call(node, is_cuda, scalar: bool) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            node.func.attr in ("grid", "gridsize") and is_cuda(node.func.value) and
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant)):
        return False
    return (node.args[0].value == 1) == scalar


def _is_range(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "range" and 1 <= len(node.args) <= 3 and not node.keywords


def _pure(node) -> bool:
    """No loads of memory, no calls other than cuda.grid/gridsize and shared/local arrays."""
    for n in ast.walk(node):
        if isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)):
            return False
        if isinstance(n, ast.Call) and _is_check_call(n):
            return False
    return True


class _GridLinearizer(Linearizer):
    """Adds the elements of `cuda.grid(2)` / `cuda.grid(3)` (from unpacking) as atoms >= 0."""

    def form(self, node):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                _is_grid_call(node.value, self.is_cuda, scalar=False):
            kind = node.value.func.attr
            atom = self.atoms.add(("cuda", kind, node.value.args[0].value, node.slice.value),
                                  lower=0 if kind == "grid" else 1)
            return Form(((atom, 1),))
        if isinstance(node, ast.Call) and not self.cuda_call(node):
            return None
        return super().form(node)


# -- the pass ---------------------------------------------------------------------------------------


class _Eliminator:
    def __init__(self, analysis: _Analysis, lin: Linearizer, ctx, sites, resolver, parsed):
        self.a = analysis
        self.lin = lin
        self.ctx = ctx
        self.sites = {s.code: s for s in sites}
        self.resolver = resolver
        self.parsed = parsed

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts, facts) -> list:
        out = []
        facts = list(facts)
        for stmt in stmts:
            bound = assigned(stmt)
            facts = [f for f in facts if not (f.deps & bound)]
            new, after = self.stmt(stmt, facts)
            out += new
            facts += [f for f in after if not (f.deps & bound) or isinstance(stmt, ast.Assign)]
        return out

    def stmt(self, stmt, facts):
        """(new statements, facts that hold after it)."""
        line = f"line {stmt.lineno}"
        if isinstance(stmt, ast.If):
            stmt.test = self.expr(stmt.test, facts)
            yes = self.lin.facts(stmt.test, f"the guard at {line}")
            no = self.lin.facts(stmt.test, f"the guard at {line}", negate=True)
            body_exits, else_exits = _exits(stmt.body), _exits(stmt.orelse)
            stmt.body = self.block(stmt.body, facts + yes)
            stmt.orelse = self.block(stmt.orelse, facts + no)
            after = (no if body_exits else []) + (yes if else_exits else [])
            return [stmt], after
        if isinstance(stmt, ast.For):
            return self._for(stmt, facts), []
        if isinstance(stmt, ast.While):
            stmt.test = self.expr(stmt.test, facts)
            yes = self.lin.facts(stmt.test, f"the loop condition at {line}")
            stmt.body = self.block(stmt.body, facts + yes)
            stmt.orelse = self.block(stmt.orelse, facts)
            return [stmt], []
        if isinstance(stmt, ast.With):
            stmt.body = self.block(stmt.body, facts)
            return [stmt], []
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == names.STORE:
            call = stmt.value
            call.args = [self.expr(a, facts) for a in call.args]
            reason = self._proof(call, facts)
            if reason is not None and isinstance(call.args[0], ast.Name):
                self._mark(call, "eliminated", reason)
                return [_plain_store(call, stmt)], []
            return [stmt], []
        if isinstance(stmt, ast.Assign):
            stmt.value = self.expr(stmt.value, facts)
            after = []
            if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name not in {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}:
                    after = self.lin.equal(name, stmt.value, f"the assignment at {line}")
            return [stmt], after
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            return [stmt], []
        if isinstance(stmt, (ast.Try,)):
            return [stmt], []
        for fld, value in ast.iter_fields(stmt):
            if isinstance(value, ast.expr):
                setattr(stmt, fld, self.expr(value, facts))
        return [stmt], []

    def _for(self, loop: ast.For, facts) -> list:
        loop.iter = self.expr(loop.iter, facts)
        before = []
        rng = self._range(loop, before)
        inner_bound = assigned(loop.body) | assigned(loop.target)
        inner = list(facts)
        if rng is not None:
            inner += self._range_facts(loop, rng, inner_bound)
        loop.body = self.block(loop.body, inner)
        loop.orelse = self.block(loop.orelse, facts)
        if rng is None:
            return before + [loop]
        versioned = self._version(loop, rng, facts, inner)
        return before + [versioned]

    def _range(self, loop: ast.For, before: list):
        """(v, lo, hi, step) of `for v in range(...)` with a positive step, else None.

        Range arguments that are not pure (loads) move into temporaries evaluated first, as
        the range call would; the loop then uses the temporaries.
        """
        if not (self.a.range_ok and isinstance(loop.target, ast.Name) and _is_range(loop.iter)):
            return None
        args = list(loop.iter.args)
        for pos, arg in enumerate(args):
            if not _pure(arg) or any(isinstance(n, ast.Call) and not self.lin.cuda_call(n)
                                     for n in ast.walk(arg)):
                tmp = self.ctx.temp()
                before.append(ast.copy_location(
                    ast.Assign([ast.Name(tmp, ast.Store())], arg), loop))
                args[pos] = ast.copy_location(ast.Name(tmp, ast.Load()), arg)
        loop.iter.args = args
        if len(args) == 1:
            lo, hi, step = ast.Constant(0), args[0], ast.Constant(1)
        else:
            lo, hi = args[0], args[1]
            step = args[2] if len(args) == 3 else ast.Constant(1)
        s = self.lin.form(step)
        if s is None or self.lin.atoms.minimum(s) is None or self.lin.atoms.minimum(s) < 1:
            return None
        return loop.target.id, lo, hi, step

    def _range_facts(self, loop, rng, bound) -> list:
        v, lo, hi, _ = rng
        if v in assigned(loop.body):
            return []
        origin = f"the loop range at line {loop.lineno}"
        vf, lof, hif = self.lin.form(ast.Name(v, ast.Load())), self.lin.form(lo), \
            self.lin.form(hi)
        out = []
        for f in ((vf - lof) if lof is not None else None,
                  (hif - vf).plus(-1) if hif is not None else None):
            if f is None:
                continue
            deps = self.lin.deps(f)
            if deps & (bound - {v}):
                continue                    # the loop changes the bound: its entry value is stale
            out.append(Fact(f, deps, origin))
        return out

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, node, facts):
        if isinstance(node, ast.BoolOp):
            seen = []
            values = []
            for value in node.values:
                values.append(self.expr(value, facts + seen))
                seen += self.lin.facts(value, f"the condition at line {node.lineno}",
                                       negate=isinstance(node.op, ast.Or))
            node.values = values
            return node
        if isinstance(node, ast.IfExp):
            node.test = self.expr(node.test, facts)
            origin = f"the condition at line {node.lineno}"
            node.body = self.expr(node.body, facts + self.lin.facts(node.test, origin))
            node.orelse = self.expr(node.orelse,
                                    facts + self.lin.facts(node.test, origin, negate=True))
            return node
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            return node
        for fld, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(node, fld, self.expr(value, facts))
            elif isinstance(value, list):
                setattr(node, fld, [self.expr(v, facts) if isinstance(v, ast.expr) else v
                                    for v in value])
        if _is_check_call(node) and node.func.id != names.STORE and not (
                node.func.id.startswith(names.ATOMIC) and
                any(may_fail(a) for a in node.args[2:-3])):
            # (an atomic whose operands may come from a failed check keeps its check: the
            # checked atomic also tests the flag)
            reason = self._proof(node, facts)
            if reason is not None:
                self._mark(node, "eliminated", reason)
                return _plain(node)
        return node

    # -- proofs ----------------------------------------------------------------------------------
    def _components(self, call):
        """[(position, component expr)] of a check call's index, or None if not all ints."""
        array, index = call.args[0], call.args[1]
        if not isinstance(array, ast.Name):
            return None
        comps = index.elts if isinstance(index, ast.Tuple) else [index]
        out = []
        for pos, comp in enumerate(comps):
            if isinstance(comp, ast.Starred) or (isinstance(comp, ast.Constant) and
                                                 type(comp.value) is not int):
                return None
            if isinstance(comp, ast.Call) and isinstance(comp.func, ast.Name) and \
                    comp.func.id == names.SLICE:
                return None
            out.append((pos, comp))
        return out

    def _proof(self, call, facts) -> str | None:
        comps = self._components(call)
        if comps is None:
            return None
        used = []
        for axis, comp in comps:
            index = self.lin.form(comp)
            extent = self.lin.shape_extent(call.args[0].id, axis)
            if index is None or extent is None:
                return None
            proof = self.lin.in_bounds(index, extent, facts)
            if proof is None:
                return None
            used += [f.origin for f in proof if f.origin not in used]
        if not used:
            return "always in bounds (constant shape, non-negative index)"
        return "proved by " + ", ".join(used)

    def _mark(self, call, status, reason):
        code = call.args[-3]
        site = self.sites.get(code.value) if isinstance(code, ast.Constant) else None
        if site is not None:
            site.status, site.reason = status, reason

    # -- loop versioning -------------------------------------------------------------------------
    def _version(self, loop: ast.For, rng, outer, inner):
        if any(isinstance(n, (ast.For, ast.While)) for s in loop.body for n in ast.walk(s)):
            return loop                  # innermost loops only
        if self._has_barrier_or_device_call(loop):
            return loop
        v, lo, hi, _ = rng
        if v in assigned(loop.body):
            return loop       # `k += 1` in the body: v leaves [lo, hi), the end tests prove nothing
        bound = assigned(loop.body) | {v}
        if not self._plain_name_expr(lo, bound) or not self._plain_name_expr(hi, bound):
            return loop
        conditions, covered = [], []
        for call in [n for s in loop.body for n in ast.walk(s) if _is_check_call(n)]:
            conds = self._cover(call, v, lo, hi, bound, inner)
            if conds is not None:
                covered.append(call)
                conditions += [c for c in conds if ast.dump(c) not in
                               {ast.dump(x) for x in conditions}]
        if not covered:
            return loop
        codes = {c.args[-3].value for c in covered}
        fast = _Unchecker(codes).visit(copy.deepcopy(loop))
        for call in covered:
            self._mark(call, "hoisted", _LOOP_REASON.format(line=loop.lineno))
        empty = ast.Compare(copy.deepcopy(lo), [ast.GtE()], [copy.deepcopy(hi)])
        if not conditions:          # proven at every iteration after all: no copy needed
            return fast
        test = ast.BoolOp(ast.Or(), [empty, ast.BoolOp(ast.And(), conditions)
                                     if len(conditions) > 1 else conditions[0]])
        loop.checked_copy = True       # (not worth registers for branch-free loads)
        out = ast.If(test=test, body=[fast], orelse=[loop])
        for n in ast.walk(out.test):
            ast.copy_location(n, loop)
        return ast.copy_location(out, loop)

    def _has_barrier_or_device_call(self, loop) -> bool:
        for n in ast.walk(loop):
            if isinstance(n, ast.Call) and not _is_check_call(n):
                if isinstance(n.func, ast.Name) and n.func.id.startswith(names.DEVICE):
                    return True
                role = self.resolver.classify_call(n.func, self.parsed)
                if role is not None and role[0] in ("barrier", "device", "plain_device"):
                    return True
        return False

    def _plain_name_expr(self, node, bound) -> bool:
        """Cheap, pure, integer, and unchanged by the loop: can be evaluated again before it."""
        if not _pure(node):
            return False
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and (n.id in bound):
                return False
            if isinstance(n, ast.Call) and not self.lin.cuda_call(n):
                return False
            if isinstance(n, ast.Subscript) and self.lin.form(n) is None:
                return False
        return self.lin.form(node) is not None

    def _cover(self, call, v, lo, hi, bound, inner):
        """Conditions (before the loop) under which `call` cannot fail, or None."""
        if not isinstance(call.args[0], ast.Name) or call.args[0].id in bound:
            return None
        if call.func.id.startswith(names.ATOMIC) and any(may_fail(a)
                                                         for a in call.args[2:-3]):
            return None
        comps = self._components(call)
        if comps is None:
            return None
        array = call.args[0].id
        vatom = ("name", v)
        conds = []
        for axis, comp in comps:
            index = self.lin.form(comp)
            extent = self.lin.shape_extent(array, axis)
            if index is None or extent is None:
                return None
            if self.lin.in_bounds(index, extent, inner) is not None:
                continue
            if not self._int_component(comp, v):
                return None
            rest = index.without(vatom)
            if self.lin.deps(rest) & bound:
                return None               # depends on something else the loop changes
            c = index.coeff(vatom)
            first = _substitute(comp, v, lo)
            last = _substitute(comp, v, ast.BinOp(copy.deepcopy(hi), ast.Sub(), ast.Constant(1)))
            low_at, high_at = (first, last) if c >= 0 else (last, first)
            extent_expr = self._extent_expr(array, axis)
            # Either end may be proven already (threadIdx >= 0): compare only what is not.
            low_form, high_form = self.lin.form(low_at), self.lin.form(high_at)
            if low_form is None or self.lin.prove(low_form, inner) is None:
                conds.append(ast.Compare(low_at, [ast.GtE()], [ast.Constant(0)]))
            if high_form is None or self.lin.prove((extent - high_form).plus(-1), inner) is None:
                conds.append(ast.Compare(high_at, [ast.Lt()], [extent_expr]))
        return conds

    def _int_component(self, comp, v) -> bool:
        """Comparing the component with an integer types: a bare name might be a tuple or a
        slice variable, so it must be the loop variable or surely an integer; an arithmetic
        expression used as an index is a number already."""
        if isinstance(comp, ast.Name):
            return comp.id == v or comp.id in self.a.int_names or comp.id in self.a.constants
        return True

    def _extent_expr(self, array, axis):
        shape = self.a.shapes.get(array)
        if shape is not None:
            return ast.Constant(shape[axis])
        return ast.Call(ast.Name(names.EXTENT, ast.Load()),
                        [ast.Name(array, ast.Load()), ast.Constant(axis)], [])


def _substitute(expr, name, value):
    class Sub(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id == name:
                return copy.deepcopy(value)
            return node
    return Sub().visit(copy.deepcopy(expr))


def _plain_store(call: ast.Call, like) -> ast.stmt:
    """A store without its check. If its value may come from a failed check in the same
    statement, the store still must not happen then: `_sk_put` tests the flag."""
    array, index, value = call.args[0], call.args[1], call.args[2]
    if may_fail(value):
        put = ast.Call(ast.Name(names.PUT, ast.Load()),
                       [array, index, value, ast.Name(names.FLAG, ast.Load())], [])
        for n in ast.walk(put):
            ast.copy_location(n, call)
        return ast.copy_location(ast.Expr(put), like)
    return ast.copy_location(ast.Assign([ast.Subscript(array, index, ast.Store())], value), like)


def _plain(call: ast.Call) -> ast.expr:
    """A check call without its check: the subscript, or numba's atomic."""
    fn = call.func.id
    if fn == names.LOAD:
        return ast.copy_location(ast.Subscript(call.args[0], call.args[1], ast.Load()), call)
    op = fn[len(names.ATOMIC):]
    atomic = ast.Attribute(ast.Attribute(ast.Name(names.CUDA, ast.Load()), "atomic", ast.Load()),
                           op, ast.Load())
    out = ast.Call(atomic, call.args[:-3], [])
    for n in ast.walk(out):
        ast.copy_location(n, call)
    return out


class _Unchecker(ast.NodeTransformer):
    """The fast copy of a versioned loop: the covered check calls become plain accesses."""

    def __init__(self, codes):
        self.codes = codes

    def _covered(self, node) -> bool:
        code = node.args[-3]
        return isinstance(code, ast.Constant) and code.value in self.codes

    def visit_Expr(self, node):
        self.generic_visit(node)
        call = node.value
        if _is_check_call(call) and call.func.id == names.STORE and self._covered(call):
            return _plain_store(call, node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if _is_check_call(node) and node.func.id != names.STORE and self._covered(node):
            return _plain(node)
        return node


class _LoopLoads(ast.NodeTransformer):
    """Checked loads in innermost `for` loops (not the checked copies of versioned loops)
    become `_sk_loadv`: the load does not wait behind its check's branch, so the loads of
    successive iterations stay in flight together (CSR SpMV's x[indices[k]])."""

    def __init__(self):
        self.depth_inner = 0

    def visit_For(self, node):
        innermost = not any(isinstance(n, (ast.For, ast.While)) for s in node.body
                            for n in ast.walk(s))
        if innermost and not getattr(node, "checked_copy", False):
            self.depth_inner += 1
            self.generic_visit(node)
            self.depth_inner -= 1
            return node
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.depth_inner and isinstance(node.func, ast.Name) and node.func.id == names.LOAD:
            node.func = ast.copy_location(ast.Name(names.LOADV, ast.Load()), node.func)
        return node


def eliminate_checks(fn: ast.FunctionDef, body: list, *, ctx, sites, parsed, resolver,
                     is_cuda) -> list:
    """The statement list with provably safe checks removed and loops versioned (see above)."""
    analysis = _Analysis(fn, body, parsed, is_cuda)
    lin = _GridLinearizer(defs=analysis.defs, constants=analysis.constants,
                          shapes=analysis.shapes, is_cuda=is_cuda)
    body = _Eliminator(analysis, lin, ctx, sites, resolver, parsed).block(body, [])
    loads = _LoopLoads()
    return [loads.visit(stmt) for stmt in body]


__all__ = ["eliminate_checks", "assigned"]
