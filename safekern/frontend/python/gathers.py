"""The gathers of a straight run, with their failures recorded at the run's end (a rewrite).

A kernel without barriers leaves after a run of straight statements that may fail, not after
each (exits.py), and the loads of such a run load with no branch before them (`_sk_loadv`,
loop_loads.py). Each still branches to its record right after it: the loads of the next
statement wait behind that branch, and the record's stores to the failure buffer stop the
compiler from keeping an element loaded twice. Perlin noise's eight permutation-table gathers
(`p[p[x] + y]`, four times) then run one after another: eight global loads where numba's
kernel issues six in two levels, and 40 registers for its 32 (now: six in two levels, 32).

Here such a run loads through `_sk_loadq` (the same branch-free load, no record) into
temporaries (`_sk_gv<n>`), moved up to just after the last statement of the run they depend on,
and checks each of those indices again right after them, in the order the loads ran
(`_sk_load_check`, the record); the statements follow, reading the temporaries. Every load of
the run is issued before any branch of its checks, and the arithmetic after the checks keeps
no index alive (with exit_mode.py's exit at the check: the checks' joins would).
A failing load gives the same stand-in as before; nothing in the run may use it for an effect
before its check records the failure (the thread then leaves, as before):

- the run's statements are assignments and expressions of names, holding no store, atomic,
  print, assert, division check, conditional evaluation (`a if c else b`, `and`, `or`, whose
  loads might not run), and no other check (which would record before the run's end, out of
  order); their calls only compute: builtins such as `int` and `min`, `math`, numeric casts,
  `cuda.grid`, and checked device functions whose own code holds no check, store or other call;
- a load is deferred when its array is a name the run does not assign (its record reads the
  same array), its index is kept in a temporary (`_sk_gi<n>`) computed where the load was.
- an element loaded again in the run (`p[x]` in two gathers: same array, same index text, no
  call in it, none of its names assigned since) takes the first load's index and no check of
  its own: it is in bounds when the first is, whose check comes first (and numba then loads it
  once, as its own kernel does).

Only kernels without barriers, outside loops (a loop's run would keep every index alive to the
end of each iteration), and runs of two deferred loads or more.
"""
from __future__ import annotations

import ast
import builtins
import itertools

from . import names
from .pending import _numeric_cast
from .trees import copy_tree, walk

_NOT_STRAIGHT = (ast.IfExp, ast.BoolOp, ast.NamedExpr, ast.Lambda, ast.ListComp, ast.SetComp,
                 ast.DictComp, ast.GeneratorExp, ast.Await, ast.Yield, ast.YieldFrom,
                 ast.JoinedStr)
_HARMLESS_HELPERS = (names.LOADV, names.EXTENT, names.INT32, names.CUDA)
_BUILTINS = ("int", "float", "bool", "complex", "abs", "min", "max", "len", "round")


def defer_gathers(body: list, *, device: bool, has_barriers: bool, grid_sync: bool,
                  resolver, parsed) -> list:
    """`body` with the gathers of its straight runs deferred (see module doc)."""
    if device or has_barriers or grid_sync:
        return body
    return _Deferrer(resolver, parsed).block(body)


class _Deferrer:
    def __init__(self, resolver, parsed):
        self.resolver = resolver
        self.parsed = parsed
        self.temps = itertools.count()
        self.pure: dict = {}            # id(device function) -> has no effect

    # -- statement lists ----------------------------------------------------------------------
    def block(self, stmts: list) -> list:
        out, run = [], []
        for stmt in stmts:
            if self._straight(stmt) and not self._breaks(run, stmt):
                run.append(stmt)
                continue
            out += self._run(run)
            run = []
            if self._straight(stmt):
                run.append(stmt)
                continue
            if isinstance(stmt, (ast.If, ast.With)):
                stmt.body = self.block(stmt.body)
                if isinstance(stmt, ast.If):
                    stmt.orelse = self.block(stmt.orelse)
            out.append(stmt)                # loops: not entered (module doc)
        return out + self._run(run)

    def _run(self, run: list) -> list:
        """The run's statements, its loads deferred, their checks after its last load."""
        if sum(1 for stmt in run for n in walk(stmt) if _is_loadv(n)) < 2:
            return run
        checks, seen, parts = [], {}, []
        for stmt in run:
            pre: list = []
            new = _Statement(self, pre, checks, seen).visit(stmt)
            pre += self._hoist_loads(new)
            stored = _stored(stmt)
            parts.append((pre, new, stored))
            for key in [k for k, (_, reads) in seen.items() if reads & stored]:
                del seen[key]           # its index may differ from here on
        # The loads move up to just after the last statement they depend on, with the
        # checks right after them: the arithmetic that uses the loaded values comes after the
        # checks, and keeps none of the indices alive.
        last = -1
        for i, (pre, _, _) in enumerate(parts):
            reads = {n.id for s in pre for n in walk(s) if isinstance(n, ast.Name) and
                     isinstance(n.ctx, ast.Load)}
            last = max([last] + [j for j in range(i) if parts[j][2] & reads])
        out = [s for pre, new, _ in parts[:last + 1] for s in pre + [new]]
        out += [s for pre, _, _ in parts[last + 1:] for s in pre]
        for array, temp, call in checks:
            check = ast.Call(ast.Name(names.LOAD_CHECK, ast.Load()),
                             [ast.Name(array, ast.Load()), ast.Name(temp, ast.Load()),
                              *(copy_tree(a) for a in call.args[2:])], [])
            out.append(_located(ast.Expr(check), call))
        return out + [new for _, new, _ in parts[last + 1:]]

    def _hoist_loads(self, stmt) -> list:
        """The deferred loads left in `stmt` (not in an index) as `_sk_gv<n> = load` before
        it, in evaluation order; `stmt` reads the temporaries."""
        pre = []
        deferrer = self

        class Hoist(ast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if not (isinstance(node.func, ast.Name) and node.func.id == names.LOADQ):
                    return node
                temp = f"{names.GATHER_VALUE}{next(deferrer.temps)}"
                pre.append(_located(ast.Assign([ast.Name(temp, ast.Store())], node), node))
                return ast.copy_location(ast.Name(temp, ast.Load()), node)

        Hoist().visit(stmt)
        return pre

    def _breaks(self, run: list, stmt) -> bool:
        """Would `stmt` assign an array a load of the run reads (its record would read
        another), or read one the run assigns?"""
        assigned = {n.id for s in run for n in walk(s)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        read = {n.args[0].id for s in run for n in walk(s)
                if _is_loadv(n) and isinstance(n.args[0], ast.Name)}
        mine = {n.id for n in walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                                                  ast.Store)}
        arrays = {n.args[0].id for n in walk(stmt) if _is_loadv(n)}
        return bool(mine & (read | arrays)) or bool(arrays & assigned)

    # -- what may be in a run -------------------------------------------------------------------
    def _straight(self, stmt) -> bool:
        if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
            return False
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return True                                          # a docstring
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [] if isinstance(stmt, ast.Expr) else [stmt.target]
        if not all(isinstance(n, (ast.Name, ast.Tuple, ast.Store)) for t in targets
                   for n in walk(t)):
            return False                                         # a plain (proven) store
        for node in walk(stmt):
            if isinstance(node, _NOT_STRAIGHT):
                return False
            if _is_loadv(node) and not (isinstance(node.args[0], ast.Name) and
                                        not node.args[0].id.startswith(names.PREFIX)):
                return False
            if isinstance(node, ast.Call) and not self._harmless(node.func):
                return False
        return True

    def _harmless(self, func) -> bool:
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(func, ast.Attribute) and isinstance(root, ast.Name) and \
                root.id.startswith(names.PREFIX):
            return False                      # `_sk_cuda.atomic.add`: a proven atomic
        if isinstance(func, ast.Name) and func.id.startswith(names.PREFIX):
            if func.id.startswith(names.DEVICE):
                role = self.resolver.classify_call(func, self.parsed)
                return role is not None and role[0] == "device" and self._pure(role[1])
            return func.id in _HARMLESS_HELPERS
        return self._computes(func, self.parsed)

    def _computes(self, func, parsed) -> bool:
        """A call that only computes a value from its arguments: a builtin such as `int` or
        `min`, a `math` function, a numeric cast (`float32(x)`), `cuda.grid`/`cuda.gridsize`.
        Nothing else (a random number generator writes its state; moving an index computed
        by it would change which number goes where)."""
        # (the pipeline's resolver wraps the backend's, which resolves names)
        base = getattr(self.resolver, "resolver", self.resolver)
        if isinstance(func, ast.Attribute) and func.attr in ("grid", "gridsize"):
            is_cuda = getattr(base, "is_cuda_module", None)
            return is_cuda is not None and bool(is_cuda(func.value, parsed))
        resolve = getattr(base, "resolve", None)
        if resolve is None or not isinstance(func, (ast.Name, ast.Attribute)):
            return False
        obj = resolve(func, parsed)
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            return obj is getattr(builtins, func.id)
        return getattr(obj, "__module__", None) == "math" or _numeric_cast(obj)

    def _pure(self, dev) -> bool:
        """A checked device function whose rewrite holds no check, store, print or call but
        those that only compute (`_computes`): it can neither record nor write."""
        key = id(dev)
        if key not in self.pure:
            self.pure[key] = False                 # (recursion: not pure)
            rewritten = getattr(dev, "rewritten", None)
            tree = getattr(rewritten, "tree", None)
            inner = getattr(dev, "parsed", None)
            ok = tree is not None and inner is not None
            for node in walk(tree) if ok else ():
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    ok = False
                elif isinstance(node, (ast.Raise, ast.Assert, ast.Global, ast.Nonlocal)):
                    ok = False
                elif isinstance(node, ast.Call):
                    f = node.func
                    if not self._computes(f, inner):
                        ok = False
                if not ok:
                    break
            self.pure[key] = ok
        return self.pure[key]


class _Statement(ast.NodeTransformer):
    """One statement of a deferred run: its loads (innermost first) as `_sk_loadq` of an index
    kept in `_sk_gi<n>` (assigned in `pre`, before the statement), their checks in `checks`.
    Children are visited before their call, in evaluation order (the statement holds no
    conditional evaluation: _Deferrer._straight)."""

    def __init__(self, deferrer, pre, checks, seen):
        self.deferrer = deferrer
        self.pre = pre
        self.checks = checks
        self.seen = seen          # (array, index) -> (its temporary, the names it reads)

    def visit_Call(self, node):
        self.generic_visit(node)
        if not _is_loadv(node):
            return node
        array = node.args[0].id
        key = (array, ast.dump(_value_of(node.args[1])))
        node.func = ast.copy_location(ast.Name(names.LOADQ, ast.Load()), node.func)
        if key in self.seen and _computes_only(node.args[1]):
            # The same element as an earlier load of the run (`p[x]` in two gathers): in
            # bounds when that one is, whose check comes first; no check of its own.
            temp = self.seen[key][0]
        else:
            temp = f"{names.GATHER_INDEX}{next(self.deferrer.temps)}"
            self.pre.append(_located(ast.Assign([ast.Name(temp, ast.Store())], node.args[1]),
                                     node))
            reads = {n.id for n in walk(node.args[1]) if isinstance(n, ast.Name)}
            self.seen[key] = (temp, reads)
            self.checks.append((array, temp, node))
        node.args[1] = ast.copy_location(ast.Name(temp, ast.Load()), node.args[1])
        return node


def _computes_only(index) -> bool:
    """No call in the index but deferred loads: evaluated twice, it gives the same value (a
    call may not: a random number generator's)."""
    return all(not isinstance(n, ast.Call) or (isinstance(n.func, ast.Name) and
                                               n.func.id == names.LOADQ) for n in walk(index))


def _value_of(index):
    """The index as what it computes: a deferred load in it as its array and index only (two
    loads of one element at different sites read the same value)."""
    index = copy_tree(index)
    for node in walk(index):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == names.LOADQ:
            node.args = node.args[:2]
    return index


def _stored(stmt) -> set:
    return {n.id for n in walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _is_loadv(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == names.LOADV


def _located(node, like):
    for n in walk(node):
        ast.copy_location(n, like)
    return node


__all__ = ["defer_gathers"]
