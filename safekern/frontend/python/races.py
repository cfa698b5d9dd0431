"""Which elements of each array parameter a thread touches: the race analysis' summary.

An analysis pass (it returns facts, it rewrites nothing), after Futhark's array short-circuiting
(`MemRefAggreg.hs`): per array parameter, every read and write as an index per axis, each a
linear form over the thread's global coordinates (`cuda.grid(1)`, the elements of
`cuda.grid(2)`/`(3)`, `threadIdx.x + blockIdx.x * blockDim.x`) and launch invariants (shapes,
scalar parameters that are never reassigned, blockDim, gridDim, constants), with the guard facts
under which it runs. Anything else (an index read from memory, a loop variable, a reassigned
name, a view, an array passed to a function) makes the access *unknown*. The launch check
(safekern/backends/numba/races.py) decides with the actual shapes and geometry whether two threads can
touch one element, one of them writing. Atomic operations never conflict and are left out.

`certain` says whether every condition on the way to the access was modelled (comparisons of
linear forms, early exits on them) and no loop or data-dependent exit lies on the way: only then
can a conflict be *proven* to happen; otherwise it can only be suspected.

`phase` places the access between barriers: how many block barriers (any barrier: a grid sync
orders a block too) and how many grid syncs (`cuda.cg.this_grid().sync()`) a thread has passed
when it runs it, each as an interval `(lo, hi)` (`hi` None: unbounded). A barrier in a loop, a
branch or a device function that may synchronise makes the count a range: the launch check
orders two accesses only when their ranges are disjoint, and proves them unordered only when
both are one and the same number (safekern/backends/numba/race_pairs.py).
"""
from __future__ import annotations

import ast

from .linear import Form
from .race_phases import join, may_synchronise, passing
from .race_summary import Access, RaceSummary
from .trees import walk

THREAD_ATOMS = ("g", 0), ("g", 1), ("g", 2)      # global thread coordinates x, y, z
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_FLIPPED = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}
_AXES = {"x": 0, "y": 1, "z": 2}
_ARRAY_ATTRS = {"shape", "size", "ndim", "dtype", "strides", "itemsize", "nbytes"}


def _normalise(form: Form | None) -> Form | None:
    """Thread atoms as global coordinates: threadIdx.k + blockIdx.k * blockDim.k -> g_k (any
    common coefficient); cuda.grid atoms -> g_k."""
    if form is None:
        return None
    terms = dict(form.terms)
    for atom in list(terms):
        if atom == ("cuda", "grid", 1):
            terms[("g", 0)] = terms.get(("g", 0), 0) + terms.pop(atom)
        elif isinstance(atom, tuple) and atom[:2] == ("cuda", "grid") and len(atom) == 4:
            terms[("g", atom[3])] = terms.get(("g", atom[3]), 0) + terms.pop(atom)
    for axis, k in _AXES.items():
        tid = ("cuda", "threadIdx", axis)
        for atom in list(terms):
            if _is_block_offset(atom, axis) and terms.get(tid) == terms[atom]:
                c = terms.pop(atom)
                terms.pop(tid)
                terms[("g", k)] = terms.get(("g", k), 0) + c
                break
    return Form.of(terms, form.const)


def _is_block_offset(atom, axis) -> bool:
    """The opaque term blockIdx.<axis> * blockDim.<axis> (either order)."""
    if not (isinstance(atom, tuple) and len(atom) == 4 and atom[:2] == ("term", "Mult")):
        return False
    parts = {a for f in atom[2:] for a, c in f.terms if c == 1 and not f.const and
             len(f.terms) == 1}
    return parts == {("cuda", "blockIdx", axis), ("cuda", "blockDim", axis)}


class _Summariser:
    def __init__(self, fn: ast.FunctionDef, lin, reassigned: set, atomic_call, barrier_kind,
                 reads_only=None):
        self.lin = lin
        # reads_only(call, position): the callee never writes its parameter at `position`
        self.reads_only = reads_only or (lambda call, position: False)
        self.params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        self.reassigned = reassigned
        self.atomic_call = atomic_call
        self.barrier_kind = barrier_kind
        self.summary = RaceSummary(tuple(self.params))
        self.phase = (0, 0, 0, 0)        # the barriers passed here (Access.phase)

    # -- barrier phases -------------------------------------------------------------------------
    def _barriers(self, node) -> tuple:
        """(block, grid, ranged): the barriers `node` runs, counted, and which counts a call
        may raise by an unknown amount ("block", "grid" or both)."""
        block = grid = 0
        ranged: set = set()
        for n in _walk_running(node):
            if isinstance(n, ast.Call):
                kind = self.barrier_kind(n)
                block += kind in ("block", "grid")
                grid += kind == "grid"
                if kind == "unknown":
                    ranged |= {"block", "grid"}
                elif kind == "warp":     # orders some threads of a block: not one phase
                    ranged.add("block")
        return block, grid, frozenset(ranged)

    def simple(self, node, visit) -> None:
        """Visit a statement or test that holds no statements; accesses in one holding a
        barrier are placed in every phase it spans."""
        counts = self._barriers(node)
        if counts == (0, 0, frozenset()):
            visit()
            return
        self.summary.has_barriers = True
        self.summary.has_grid_sync = self.summary.has_grid_sync or counts[1] > 0 or \
            "grid" in counts[2]
        after = passing(self.phase, counts)
        self.phase = (self.phase[0], after[1], self.phase[2], after[3])
        visit()
        self.phase = after

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts, guards: tuple, certain: bool) -> tuple:
        """Walk a statement list; the guards and certainty after it (early exits add facts)."""
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                self.simple(stmt.test, lambda: self.expr(stmt.test, guards, certain))
                modeled = self._modeled(stmt.test)
                taken = self._facts(stmt.test, False)
                untaken = self._facts(stmt.test, True) if self._modeled_negation(stmt.test) \
                    else None
                start = self.phase
                self.block(stmt.body, guards + taken, certain and modeled)
                after_body, self.phase = self.phase, start
                self.block(stmt.orelse, guards + (untaken or ()), certain and untaken is not None)
                self.phase = join(after_body, self.phase)
                body_exits, else_exits = _exits(stmt.body), _exits(stmt.orelse)
                if body_exits and not else_exits and untaken is not None:
                    guards = guards + untaken
                elif body_exits or else_exits or _may_exit(stmt):
                    certain = False
            elif isinstance(stmt, (ast.For, ast.While)):
                # Barriers in a loop run any number of times: from the first iteration on,
                # only the lower bounds of the phase are known (an access after the barrier
                # of one iteration and one before it in the next share a phase).
                self.phase = passing(self.phase, self._barriers(stmt), ranged=True)
                if self.phase[1] is None:
                    self.summary.has_barriers = True
                    self.summary.has_grid_sync = self.summary.has_grid_sync or \
                        self.phase[3] is None
                entry = self.phase
                self.expr(stmt.iter if isinstance(stmt, ast.For) else stmt.test, guards, certain)
                if isinstance(stmt, ast.For):
                    self.target(stmt.target, None, guards, False)
                self.block(stmt.body, guards, False)
                self.phase = entry
                self.block(stmt.orelse, guards, False)
                self.phase = entry           # the loop may run no iteration, or break
                if _may_exit(stmt, loop=True):
                    certain = False
            elif isinstance(stmt, ast.With):
                for item in stmt.items:
                    self.simple(item.context_expr,
                                lambda e=item.context_expr: self.expr(e, guards, certain))
                guards, certain = self.block(stmt.body, guards, certain)
            else:
                self.simple(stmt, lambda s=stmt: self.statement(s, guards, certain))
                if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                    certain = False
        return guards, certain

    def statement(self, stmt, guards, certain) -> None:
        """A statement that holds no statements."""
        if isinstance(stmt, ast.Assign):
            self.expr(stmt.value, guards, certain)
            for target in stmt.targets:
                self.target(target, stmt.value, guards, certain)
        elif isinstance(stmt, ast.AugAssign):
            self.expr(stmt.value, guards, certain)
            if isinstance(stmt.target, ast.Subscript):
                self.subscript(stmt.target, guards, certain, write=False)
            self.target(stmt.target, None, guards, certain)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.expr(stmt.value, guards, certain)
                self.target(stmt.target, stmt.value, guards, certain)
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.expr(child, guards, certain)

    def target(self, target, value, guards, certain):
        if isinstance(target, ast.Subscript):
            self.subscript(target, guards, certain, write=True,
                           uniform_value=value is not None and self._uniform(value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.target(elt, None, guards, certain)
        elif isinstance(target, ast.Starred):
            self.target(target.value, None, guards, certain)
        if isinstance(target, ast.Name) and isinstance(value, ast.Name) and \
                value.id in self.params:
            self.opaque(value.id, target.lineno, f"bound to another name ({target.id})")

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, node, guards, certain):
        if node is None:
            return
        if isinstance(node, ast.Subscript):
            self.subscript(node, guards, certain, write=False)
            return
        if isinstance(node, ast.Call):
            if self.atomic_call(node):
                # Atomics never conflict; only their other arguments are read.
                for arg in node.args[1:]:
                    self.expr(arg, guards, certain)
                return
            positional = len(node.args)
            for position, arg in enumerate(list(node.args) + [k.value for k in node.keywords]):
                if isinstance(arg, ast.Name) and arg.id in self.params:
                    callee = ast.unparse(node.func)
                    if position < positional and self.reads_only(node, position):
                        self.summary.opaque_reads.setdefault(
                            arg.id, (node.lineno, f"read by {callee}()"))
                    else:
                        self.opaque(arg.id, node.lineno, f"passed to {callee}()")
                else:
                    self.expr(arg, guards, certain)
            self.expr(node.func, guards, certain)
            return
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in self.params and \
                    node.attr in _ARRAY_ATTRS:
                return
            self.expr(node.value, guards, certain)
            return
        if isinstance(node, ast.Name):
            return              # a bare parameter elsewhere (returned, compared): harmless
        for child in ast.iter_child_nodes(node):
            self.expr(child, guards, certain)

    def _uniform(self, value) -> bool:
        """The same value in every thread: constants, launch invariants (never-reassigned
        scalar parameters, module constants, `a.shape[0]`, `len(a)`, `a.size`,
        `cuda.blockDim.x`, `cuda.gridDim.y`) and arithmetic on them."""
        if isinstance(value, ast.Constant):
            return True
        if isinstance(value, ast.Name):
            return value.id not in self.reassigned and (value.id in self.params or
                                                        value.id in self.lin.constants)
        if isinstance(value, ast.BinOp):
            return self._uniform(value.left) and self._uniform(value.right)
        if isinstance(value, ast.UnaryOp):
            return self._uniform(value.operand)
        if (isinstance(value, ast.Attribute) and value.attr in ("size", "ndim") and
                self._unchanged_param(value.value)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and
                value.func.id == "len" and len(value.args) == 1 and
                self._unchanged_param(value.args[0]) and "len" not in self.params):
            return True
        if isinstance(value, (ast.Attribute, ast.Subscript, ast.Call)):
            form = self.lin.form(value)
            return form is not None and bool(form.atoms) and all(
                self._launch_invariant(atom) for atom in form.atoms)
        return False

    def _unchanged_param(self, node) -> bool:
        return isinstance(node, ast.Name) and node.id in self.params and node.id not in self.reassigned

    def _launch_invariant(self, atom) -> bool:
        """An atom of a linear form that every thread of a launch sees alike."""
        if atom[0] in ("shape", "name"):
            return atom[1] in self.params and atom[1] not in self.reassigned
        return atom[0] == "cuda" and atom[1] in ("blockDim", "gridDim")

    def subscript(self, node: ast.Subscript, guards, certain, *, write: bool,
                  uniform_value: bool = False):
        self.expr(node.slice, guards, certain)
        base = node.value
        if not (isinstance(base, ast.Name) and base.id in self.params):
            inner = base.value if isinstance(base, ast.Subscript) else None
            if isinstance(inner, ast.Name) and inner.id in self.params:
                self.opaque(inner.id, node.lineno, f"indexed through a view ({ast.unparse(node)})")
            self.expr(base, guards, certain)
            return
        comps = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        index = tuple(self._form(c) for c in comps)
        known = all(f is not None for f in index)
        self.summary.accesses.setdefault(base.id, []).append(Access(
            base.id, write, index if known else None, tuple(guards), certain, node.lineno,
            ast.unparse(node), write and uniform_value, self.phase, node.col_offset))

    def opaque(self, param, lineno, why):
        self.summary.opaque.setdefault(param, (lineno, why))

    # -- forms and facts -----------------------------------------------------------------------
    def _form(self, node) -> Form | None:
        if isinstance(node, (ast.Slice, ast.Starred)) or (
                isinstance(node, ast.Constant) and node.value in (None, Ellipsis)):
            return None
        form = _normalise(self.lin.form(node))
        if form is None or not all(self._allowed(atom) for atom in form.atoms):
            return None
        return form

    def _allowed(self, atom) -> bool:
        if atom in THREAD_ATOMS:
            return True
        if atom[0] == "shape":
            return atom[1] in self.params and atom[1] not in self.reassigned
        if atom[0] == "name":
            return atom[1] in self.params and atom[1] not in self.reassigned
        if atom[0] == "cuda":
            return atom[1] in ("threadIdx", "blockIdx", "blockDim", "gridDim", "gridsize")
        return False

    def _facts(self, test, negate) -> tuple:
        """Forms that are >= 0 where `test` holds (or fails, with negate). Unlike the
        elimination's facts these need no proof that the kernel's arithmetic cannot wrap or
        that its values are integers: the launch check evaluates them with the actual values
        (integer scalars only) and refuses magnitudes that could wrap."""
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) == negate:
                return ()
            return tuple(f for v in test.values for f in self._facts(v, negate))
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._facts(test.operand, not negate)
        if not isinstance(test, ast.Compare) or (negate and len(test.ops) > 1):
            return ()
        out, left = [], test.left
        for op, right in zip(test.ops, test.comparators):
            a, b = self._form(left), self._form(right)
            kind = _FLIPPED.get(type(op)) if negate else type(op)
            if a is not None and b is not None and kind in _ORDER:
                small, big = (a, b) if kind in (ast.Lt, ast.LtE) else (b, a)
                out.append((big - small).plus(-1 if kind in (ast.Lt, ast.Gt) else 0))
            left = right
        return tuple(out)

    def _modeled(self, test) -> bool:
        """Every part of `test` becomes a fact (so where it holds is known exactly)."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return all(self._modeled(v) for v in test.values)
        return self._ordering(test)

    def _ordering(self, test) -> bool:
        """A comparison chain of <, <=, >, >= between linear forms."""
        if not isinstance(test, ast.Compare) or not all(
                isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in test.ops):
            return False
        operands = [test.left, *test.comparators]
        return all(self._form(o) is not None for o in operands) and \
            len(self._facts(test, False)) == len(test.ops)

    def _modeled_negation(self, test) -> bool:
        """`not test` is one fact: a single ordering comparison."""
        return self._ordering(test) and len(test.ops) == 1 and \
            len(self._facts(test, True)) == 1


def _walk_running(node):
    """The nodes of `node` that run with it: not the bodies of functions it defines."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))


def _exits(body) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Break,
                                                ast.Continue))


def _may_exit(stmt, loop=False) -> bool:
    kinds = (ast.Return, ast.Raise) if loop else (ast.Return, ast.Raise, ast.Break, ast.Continue)
    return any(isinstance(n, kinds) for n in walk(stmt))


def _views(fn, s: _Summariser) -> None:
    """A name bound to a subscript of a parameter and then indexed, called with or given to a
    function is a view (`row = a[i]`): what happens through it is not followed, so the
    parameter's accesses are not known."""
    views = {}
    for node in walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) and \
                isinstance(node.value.value, ast.Name) and node.value.value.id in s.params:
            for target in node.targets:
                names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                for name in names:
                    if isinstance(name, ast.Name):
                        views[name.id] = (node.value.value.id, node.lineno)
    if not views:
        return
    for node in walk(fn):
        used = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            used = node.value.id
        elif isinstance(node, ast.Call):
            for arg in node.args:
                if isinstance(arg, ast.Name) and arg.id in views:
                    used = arg.id
        if used in views:
            param, line = views[used]
            s.opaque(param, line, f"a view of it, {used!r}, is indexed or passed on")


def summarise(fn: ast.FunctionDef, lin, *, reassigned: set, atomic_call, barrier_kind,
              reads_only=None) -> RaceSummary:
    """The accesses of every parameter of the kernel `fn` (its source as the user wrote it).

    `lin` is a Linearizer over the function's single definitions; `reassigned` the names bound
    more than once; `atomic_call(call)` recognises cuda.atomic.*; `barrier_kind(call)` says
    "block" (a block barrier), "grid" (a grid sync), "unknown" (a function that may run any
    number of either) or None."""
    s = _Summariser(fn, lin, reassigned, atomic_call, barrier_kind, reads_only)
    s.block(fn.body, (), True)
    _views(fn, s)
    for param in s.params:
        if param in reassigned:
            s.opaque(param, fn.lineno, "rebound inside the kernel")
    return s.summary





def analyse_kernel(parsed, resolver) -> RaceSummary:
    """The race summary of a kernel as the user wrote it (`parsed.tree`), with the backend's
    resolver telling atomics, barriers and the cuda module apart."""
    from .bindings import FunctionBindings    # the same facts the elimination uses
    from .index_forms import Linearizer
    from .unchecked import is_check_call

    fn = parsed.tree
    is_cuda = lambda e: resolver.is_cuda_module(e, parsed)     # noqa: E731
    analysis = FunctionBindings(fn, fn.body, parsed, is_cuda, is_check_call)
    lin = Linearizer(defs=analysis.defs, constants=analysis.constants, shapes=analysis.shapes,
                     integers=analysis.integers, is_cuda=is_cuda)
    reassigned = {name for name, count in analysis.counts.items()
                  if count > 1 or name in {a.arg for a in fn.args.args}}

    def role(call):
        return resolver.classify_call(call.func, parsed)

    def atomic_call(call):
        r = role(call)
        return r is not None and r[0] == "atomic"

    def barrier_kind(call, depth=0):
        if isinstance(call.func, ast.Name) and call.func.id in analysis.counts:
            # A function under a local name (`sync = cuda.syncthreads`): what it is bound to;
            # bound more than once or to something not followed, it may synchronise.
            value = analysis.defs.get(call.func.id)
            if value is None or depth > 8:
                return "unknown"
            return barrier_kind(ast.Call(value, call.args, call.keywords), depth + 1)
        r = role(call)
        if r is None:
            return "warp" if _is_syncwarp(call.func, is_cuda, resolver, parsed) else None
        if r[0] == "barrier":
            return "block"
        if r[0] == "grid_sync":
            return "grid"
        if r[0] == "device" and (getattr(r[1], "has_barriers", False) or
                                 may_synchronise(r[1])):     # (has_barriers: not syncwarp)
            return "unknown"
        if r[0] == "plain_device" and may_synchronise(resolver.resolve(call.func, parsed)):
            return "unknown"
        return None

    def reads_only(call, position) -> bool:
        # A checked device function whose own summary never writes the parameter (nor passes
        # it on unmodelled): the argument is read there, at elements not known.
        r = role(call)
        callee = r[1] if r is not None and r[0] == "device" else None
        tree = getattr(getattr(callee, "parsed", None), "tree", None)
        if tree is None or id(callee) in _SUMMARISING:
            return False                 # (a function that calls itself: not followed)
        _SUMMARISING.add(id(callee))
        try:
            summary = analyse_kernel(callee.parsed, resolver)
        except Exception:                # noqa: BLE001 - not analysable: possibly written
            return False
        finally:
            _SUMMARISING.discard(id(callee))
        params = summary.params
        return position < len(params) and not summary.written(params[position])

    return summarise(fn, lin, reassigned=reassigned, atomic_call=atomic_call,
                     barrier_kind=barrier_kind, reads_only=reads_only)


_SUMMARISING: set = set()        # the device functions whose summaries are being made


def _is_syncwarp(func, is_cuda, resolver, parsed) -> bool:
    """`cuda.syncwarp` (or the function imported under a name)."""
    if isinstance(func, ast.Attribute):
        return func.attr == "syncwarp" and is_cuda(func.value)
    return isinstance(func, ast.Name) and \
        getattr(resolver.resolve(func, parsed), "__name__", None) == "syncwarp"


__all__ = ["Access", "RaceSummary", "summarise", "analyse_kernel", "THREAD_ATOMS"]
