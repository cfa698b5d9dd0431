"""Drop checks that cannot fail, and check loop accesses once before the loop where possible.

A pure pass from the checked tree (after `BoundsCheckRewriter`, before the failure exits) to a
new tree:

- **Eliminate.** A check call whose every index component is proven in bounds by what the code
  already compared on the way -- `if i < a.shape[0]`, `for k in range(a.shape[1])`, `if i >= n:
  return` with `n = a.shape[0]`, `0 <= threadIdx`, constant shapes of shared/local arrays --
  becomes the plain subscript (or the plain atomic). Facts are gathered walking the statements
  in order; a fact stops holding at any assignment of a variable it mentions (also in a
  condition's walrus, anywhere in a loop the fact enters, in tuple and augmented assignments).
- **Version loops** (versioning.py): an innermost range loop runs without the checks of
  accesses that are in bounds at its first and last iteration, tested once before it; and
  **functions** (body_versioning.py): a loop-free body whose indices are known on entry.

Which proofs are valid at all -- exact arithmetic, integer and non-integer values, the assumed
bounds of shapes and thread indices -- is index_forms.py's and linear.py's part; `min`, `max`
and `x if c else y` are choices.py's, `a != b` not_equal.py's, the bounds of range variables
loop_bounds.py's, and the bounds a variable keeps through every assignment (`d *= 2`, `s //=
2`) invariants.py's (the pass runs again without those of a variable whose update it cannot
show does not wrap). docs/checks.md has the rules and what each assumes. `check_report()`
lists each site as "checked", "eliminated" (reason: the proof) or "hoisted".
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import names
from .call_facts import (CallSiteFacts, array_root, common_facts, demands, entry_facts,
                         index_form, plain_array)
from .divisions import proven_division
from .exits import contains_barrier
from .flag_facts import FlagFacts
from .aliases import by_assumptions
from .bindings import FunctionBindings, assigned, is_range, pure, walrus_targets
from .casts import IntegerCasts
from .index_forms import Linearizer
from .invariants import Invariants
from .launch import LaunchProver, worth_a_variant
from .loop_loads import LoopLoads
from .linear import Fact
from .parse import names_read
from .value_cases import axis_proof, guards
from .unchecked import (atomic_operands_may_fail, is_check_call, plain, plain_atomic_statement,
                        plain_store)
from .trees import copy_tree, walk
from .body_versioning import BodyVersioner
from .versioning import LoopVersioner


def _exits(body) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Continue, ast.Break, ast.Raise))


class _Eliminator:
    def __init__(self, bindings: FunctionBindings, lin: Linearizer, ctx, sites, resolver, parsed,
                 *, flag_tested: bool, launch: bool, flags: FlagFacts, invariants=None,
                 only=None):
        self.b = bindings
        self.resolver = resolver
        self.invariants = invariants
        self.lin = lin
        self.ctx = ctx
        self.sites = {s.code for s in sites}
        self.verdicts: dict[int, tuple[str, str]] = {}      # code -> (status, reason)
        # Launch predicates (launch.py): code -> the predicates that prove the check.
        self.launch = LaunchProver(lin, bindings.launch_params, bindings.entry_aliases) \
            if launch else None
        self.launch_codes: dict[int, list] = {}
        self.launch_used: dict[int, list] = {}     # code -> the static facts used with them
        # Device calls: name -> (static ParamFacts, [(ParamFact, launch predicates)])
        self.call_sites = CallSiteFacts(lin, self.launch)
        self.call_facts: dict[str, tuple] = {}
        self.flag_tested = flag_tested
        self.flags = flags      # what `if computed:` knows (flag_facts.py)
        self.only = only        # failure codes to prove (aliases.py's runs), else all
        self.versioner = LoopVersioner(lin, bindings, resolver, parsed,
                                       components=self._components, mark=self._mark,
                                       flag_tested=flag_tested)
        self.bodies = BodyVersioner(self.versioner, mark=self._mark, flag_tested=flag_tested)

    # -- statements ---------------------------------------------------------------------------
    def rebinds(self, node) -> set:
        """Names evaluating `node` may rebind: its walrus targets, and with a call in it the
        names a nested function declares nonlocal."""
        out = walrus_targets(node)
        if self.b.escaping and any(isinstance(n, ast.Call) for n in walk(node)):
            out |= self.b.escaping
        return out

    def facts(self, test, origin, facts, negate=False) -> list:
        """The facts of a condition that still hold once it is evaluated."""
        rebound = self.rebinds(test)
        return [f for f in self.lin.facts(test, origin, negate=negate, scope=facts)
                if not (f.deps & rebound)]

    def block(self, stmts, facts) -> list:
        out = []
        facts = list(facts)
        for stmt in stmts:
            if self.invariants is not None:      # (the facts that hold before it)
                self.invariants.verify(stmt, facts)
            bound = assigned(stmt) | self.rebinds(stmt)
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
            yes = self.facts(stmt.test, f"the guard at {line}", facts)
            no = self.facts(stmt.test, f"the guard at {line}", facts, negate=True)
            yes += self.flags.implied(stmt.test, lambda c: self.facts(    # `if computed:`
                c, f"the flag at {line}", facts) + (guards(
                    self.lin, c, f"the flag at {line}", False, facts)
                    if self.launch is not None else []))
            if self.launch is not None:     # (read again per value of a loop variable)
                yes += guards(self.lin, stmt.test, f"the guard at {line}", False, facts)
                no += guards(self.lin, stmt.test, f"the guard at {line}", True, facts)
            body_exits, else_exits = _exits(stmt.body), _exits(stmt.orelse)
            stmt.body = self.block(stmt.body, facts + yes)
            stmt.orelse = self.block(stmt.orelse, facts + no)
            after = (no if body_exits else []) + (yes if else_exits else [])
            return [stmt], after
        if isinstance(stmt, ast.For):
            return self._for(stmt, facts), []
        if isinstance(stmt, ast.While):
            stmt.test = self.expr(stmt.test, facts)
            yes = self.facts(stmt.test, f"the loop condition at {line}", facts)
            stmt.body = self.block(stmt.body, facts + yes)
            stmt.orelse = self.block(stmt.orelse, facts)
            return [stmt], []
        if isinstance(stmt, ast.With):
            stmt.body = self.block(stmt.body, facts)
            return [stmt], []
        if isinstance(stmt, ast.Expr) and is_check_call(stmt.value):
            return self._access_statement(stmt, facts), []
        if isinstance(stmt, ast.Assign):
            stmt.value = self.expr(stmt.value, facts)
            self.flags.assigned(stmt, facts)
            after = []
            if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name not in names_read(stmt.value) \
                        and not walrus_targets(stmt.value):
                    after = self.lin.equal(name, stmt.value, f"the assignment at {line}",
                                           scope=facts)
                    if self.launch is not None:
                        after += guards(self.lin, stmt.value, f"the assignment at {line}",
                                        False, facts, target=name)
            return [stmt], after
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef, ast.Try)):
            return [stmt], []
        for fld, value in ast.iter_fields(stmt):
            if isinstance(value, ast.expr):
                setattr(stmt, fld, self.expr(value, facts))
        return [stmt], []

    def _access_statement(self, stmt, facts) -> list:
        """A store, or an atomic whose result is unused."""
        call = stmt.value
        fn = call.func.id
        if fn == names.LOAD:
            stmt.value = self.expr(call, facts)
            return [stmt]
        call.args = [self.expr(a, facts) for a in call.args]
        if fn.startswith(names.ATOMIC) and atomic_operands_may_fail(call):
            return [stmt]
        reason = self._proof(call, facts)
        if reason is None or not plain_array(call.args[0]):
            self._launch_proof(call, facts)
            return [stmt]
        self._mark(call, "eliminated", reason)
        if fn == names.STORE:
            return [plain_store(call, stmt, flag_tested=self.flag_tested)]
        if self.flag_tested:
            return [plain_atomic_statement(stmt, call)]
        return [ast.copy_location(ast.Expr(plain(call)), stmt)]

    def _for(self, loop: ast.For, facts) -> list:
        loop.iter = self.expr(loop.iter, facts)
        before = []
        rng = self._range(loop, before, facts)
        inner = list(facts)
        if rng is not None:
            inner += self._range_facts(loop, rng)
        else:
            inner += self._falling_range_facts(loop)
        loop.body = self.block(loop.body, inner)
        loop.orelse = self.block(loop.orelse, facts)
        if rng is None:
            return before + [loop]
        if self.only is not None:       # (a run for verdicts only: no versioned copies)
            return before + [loop]
        return before + [self.versioner.version(loop, rng, inner)]

    def _range(self, loop: ast.For, before: list, facts):
        """(v, lo, hi, step) of `for v in range(...)` with a positive step, else None.

        Range arguments that read memory or call functions, or whose arithmetic might wrap
        around, move into temporaries evaluated first, in order, as the range call would: the
        loop then uses the temporaries, whose values are what the range really iterates over.
        """
        if not (self.b.range_ok and isinstance(loop.target, ast.Name) and is_range(loop.iter)):
            return None
        args = list(loop.iter.args)
        for pos, arg in enumerate(args):
            if not pure(arg, is_check_call) or any(
                    isinstance(n, ast.Call) and not self.lin.is_plain_value(n)
                    for n in walk(arg)) or not self.lin.exact(arg, facts):
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

    def _range_facts(self, loop, rng) -> list:
        """lo <= v < hi, while v is not reassigned in the body and lo, hi (evaluated once,
        before the first iteration) do not depend on anything the loop assigns -- v itself
        included: in `for j in range(j)` the bound is the old j."""
        v, lo, hi, _ = rng
        bound = assigned(loop.body) | {v}
        if v in assigned(loop.body):
            return []
        origin = f"the loop range at line {loop.lineno}"
        vf, lof, hif = self.lin.form(ast.Name(v, ast.Load())), self.lin.form(lo), \
            self.lin.form(hi)
        out = []
        # (range() takes integers only, so v < hi is v <= hi - 1 whatever hi's type.)
        for end, f in ((lof, (vf - lof) if lof is not None else None),
                       (hif, (hif - vf).plus(-1) if hif is not None else None)):
            if f is None or self.lin.deps(end) & bound:
                continue                    # the loop changes the bound: its entry value is stale
            out.append(Fact(f, self.lin.deps(f), origin))
        return out

    def _falling_range_facts(self, loop) -> list:
        """`hi < v <= lo` in `for v in range(lo, hi, step)` with a negative constant step (the
        same conditions as for a positive one; the loop is not versioned)."""
        if not (self.b.range_ok and isinstance(loop.target, ast.Name) and is_range(loop.iter)
                and len(loop.iter.args) == 3):
            return []
        lo, hi, step = loop.iter.args
        s = self.lin.form(step)
        if s is None or s.terms or s.const > -1 or not all(
                pure(a, is_check_call) and self.lin.exact(a, []) and not any(
                    isinstance(n, ast.Call) and not self.lin.is_plain_value(n)
                    for n in walk(a)) for a in (lo, hi)):
            return []
        # (the upper end reads as the ascending loop's `lo <= v`, the lower end as `v < hi`,
        # swapped: hi + 1 <= v <= lo)
        return self._range_facts(loop, (loop.target.id, ast.BinOp(hi, ast.Add(), ast.Constant(1)),
                                        ast.BinOp(lo, ast.Add(), ast.Constant(1)), step))

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, node, facts):
        if isinstance(node, ast.BoolOp):
            rebound = self.rebinds(node)
            seen = []
            values = []
            for value in node.values:
                values.append(self.expr(value, facts + seen))
                seen += self.lin.facts(value, f"the condition at line {node.lineno}",
                                       negate=isinstance(node.op, ast.Or), scope=facts + seen)
                seen = [f for f in seen if not (f.deps & rebound)]
            node.values = values
            return node
        if isinstance(node, ast.IfExp):
            node.test = self.expr(node.test, facts)
            origin = f"the condition at line {node.lineno}"
            rebound = self.rebinds(node)
            yes = [f for f in self.lin.facts(node.test, origin, scope=facts)
                   if not (f.deps & rebound)]
            no = [f for f in self.lin.facts(node.test, origin, negate=True, scope=facts)
                  if not (f.deps & rebound)]
            node.body = self.expr(node.body, facts + yes)
            node.orelse = self.expr(node.orelse, facts + no)
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
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in getattr(self.resolver, "device_calls", {}):
            self._call_facts(node, facts)
        division = proven_division(self.lin, node, facts)
        if division is not None:
            self._mark(node, "eliminated", division[1])
            return division[0]
        if is_check_call(node) and node.func.id == names.LOAD or (
                is_check_call(node) and node.func.id.startswith(names.ATOMIC) and
                not self.flag_tested and not atomic_operands_may_fail(node)):
            reason = self._proof(node, facts)
            if reason is not None:
                self._mark(node, "eliminated", reason)
                return plain(node)
            self._launch_proof(node, facts)
        return node

    # -- proofs ----------------------------------------------------------------------------------
    def _call_facts(self, call, facts):
        """What this device call's arguments are known to be (call_facts.py)."""
        dev = self.resolver.device_calls[call.func.id]
        params = [a.arg for a in dev.parsed.tree.args.args]
        if any(isinstance(n, ast.NamedExpr) for n in walk(call)):
            return
        static, launch = self.call_sites.of(call, params, facts, demands(dev.parsed.tree))
        before = self.call_facts.get(call.func.id)
        if before is not None:
            # The same call twice (a versioned loop's copies): what holds at both.
            static, launch = common_facts((static, launch), before)
        self.call_facts[call.func.id] = (static, launch)
        for key in [k for k in self.launch_codes if isinstance(k, tuple) and
                    k[1] == call.func.id]:
            del self.launch_codes[key]
        for fact, predicates in launch:
            # (a pseudo check code: the launch variant's callee is specialised for it)
            self.launch_codes[("call", call.func.id, fact)] = list(predicates)

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

    def _root_components(self, call):
        """(array name, [(axis of that array, component)]) of a check call, reading through
        integer indices (`vec[k][0]`: call_facts.array_root), or None."""
        root = array_root(self.lin, call.args[0])
        if root is None:
            return None
        index = call.args[1]
        comps = index.elts if isinstance(index, ast.Tuple) else [index]
        out = []
        for pos, comp in enumerate(comps):
            if isinstance(comp, ast.Call) and isinstance(comp.func, ast.Name) and \
                    comp.func.id == names.SLICE:
                continue                   # a slice never fails (clamped)
            if isinstance(comp, ast.Starred) or (isinstance(comp, ast.Constant) and
                                                 type(comp.value) is not int):
                return None
            out.append((pos + root[1], comp))
        return root[0], out

    def _skipped(self, call) -> bool:
        code = call.args[-3]
        return self.only is not None and not (isinstance(code, ast.Constant) and
                                              code.value in self.only)

    def _proof(self, call, facts) -> str | None:
        if self._skipped(call):
            return None
        found = self._root_components(call)
        if found is None:
            return None
        array, comps = found
        if not comps:
            return "a slice never fails (its ends are clamped)"
        used = []
        for axis, comp in comps:
            index, exact = index_form(self.lin, comp)
            extent = self.lin.shape_extent(array, axis)
            if index is None or extent is None or not (
                    exact or self.lin.exact(comp, facts, index=True)):
                return None
            proof = self.lin.in_bounds(index, extent, facts)
            if proof is None:
                return None
            used += [o for o in dict.fromkeys(f.origin for f in proof) if o not in used]
        if not used:
            return "always in bounds (constant shape, non-negative index)"
        return "proved by " + ", ".join(used)

    def _launch_proof(self, call, facts) -> None:
        """Record the launch predicates that prove `call`'s check, if there are such (the
        check stays in this tree: the checked variant runs when a predicate fails)."""
        if self.launch is None or not plain_array(call.args[0]) or self._skipped(call):
            return
        root = self._root_components(call)
        if root is None:
            return
        array, comps = root
        found, used = [], []
        for axis, comp in comps:
            proof = axis_proof(self.lin, self.launch, array, axis, comp, facts,
                               self.launch_codes)
            if proof is None:
                return
            found += [p for p in proof[0] if p not in found]
            used += [u for u in dict.fromkeys(proof[1]) if u not in used]
        code = call.args[-3]
        if found and isinstance(code, ast.Constant) and code.value in self.sites:
            self.launch_codes[code.value] = found
            self.launch_used[code.value] = used

    def launch_verdicts(self) -> dict:
        """The launch predicates worth a variant (launch.worth_a_variant), and the verdicts of
        the checks they prove: proven at launch, else what the rest of the pass found."""
        kept = worth_a_variant(self.launch_codes)
        for code, predicates in kept.items():
            used = self.launch_used.get(code)
            reason = f"if {' and '.join(p.text() for p in predicates)}" + \
                (f", with {', '.join(used)}" if used else "")
            before = self.verdicts.get(code)
            if before is not None:      # hoisted: the loop's test where the launch fails
                reason += f"; else {before[1]}"
            self.verdicts[code] = ("proven at launch", reason)
        return kept

    def _mark(self, call, status, reason):
        code = call.args[-3]
        if isinstance(code, ast.Constant) and code.value in self.sites:
            self.verdicts[code.value] = (status, reason)


@dataclass
class Elimination:
    """What eliminate_checks found and made."""

    body: list                  # the new statement list (the input is left as it was)
    verdicts: dict              # failure code -> (status, reason): eliminated, hoisted, launch
    launch_codes: dict          # failure code -> [LaunchPredicate]: checks proven at launch
    call_facts: dict = None     # device call -> (ParamFacts, [(ParamFact, predicates)])


def eliminate_checks(fn: ast.FunctionDef, body: list, *, ctx, sites, parsed, resolver,
                     is_cuda, device: bool = False, launch: bool = True,
                     param_facts=()) -> Elimination:
    """Provably safe checks removed, loops and bodies versioned (see above): a new statement
    list and the verdicts. `device`: a device function (maybe entered with the flag set; no
    launch). `launch`: look for launch predicates (launch.py). `param_facts`: what every
    caller of this specialisation passes (call_facts.py). (Each run's tree is a copy of
    `body`: whether it holds a barrier is known once.)"""
    flag_tested = device or contains_barrier(body, resolver, parsed)

    def run(aliases=None, scalars=(), only=None):
        excluded: set = set()
        while True:
            # (Again without the bounds of a variable whose update might wrap: invariants.py.)
            tree = copy_tree(body)          # the eliminator edits nodes in place: its own copy
            bindings = FunctionBindings(fn, tree, parsed, is_cuda, is_check_call)
            lin = Linearizer(defs=bindings.defs, constants=bindings.constants,
                             shapes=bindings.shapes, integers=bindings.integers, is_cuda=is_cuda,
                             choices=bindings.choices, range_vars=bindings.range_vars,
                             len_builtin=bindings.len_builtin, casts=IntegerCasts(ctx.lookup),
                             aliases=aliases, scalars=scalars)
            invariants = Invariants(tree, bindings, lin, is_check_call, excluded)
            eliminator = _Eliminator(bindings, lin, ctx, sites, resolver, parsed,
                                     flag_tested=flag_tested, launch=launch and not device,
                                     flags=FlagFacts(fn, tree), invariants=invariants, only=only)
            tree = eliminator.block(tree, invariants.facts + entry_facts(lin, param_facts))
            if only is None:       # (a run for verdicts only: no versioned copies)
                tree = eliminator.bodies.version(fn, tree)
            broken = invariants.broken()
            if not broken:
                return tree, eliminator, bindings
            excluded |= broken

    tree, eliminator, bindings = run()
    loads = LoopLoads(eliminator.versioner.checked_copies)
    launch_codes = eliminator.launch_verdicts()
    verdicts = eliminator.verdicts
    if launch and not device:       # equal shapes, bounded scalars (aliases.py)
        verdicts, launch_codes = by_assumptions(lambda *a: run(*a)[1], body, bindings, sites,
                                                eliminator, verdicts, launch_codes)
    return Elimination([loads.visit(stmt) for stmt in tree], verdicts, launch_codes,
                       eliminator.call_facts)


__all__ = ["eliminate_checks", "Elimination", "assigned"]
