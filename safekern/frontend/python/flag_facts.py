"""What `if flag:` knows from a boolean set under a guard (analysis only; for eliminate.py).

Rodinia's pathfinder (and hotspot, in two dimensions) write their result after the loop that
computed it, behind a boolean:

    is_valid = tx >= valid_xmin and tx <= valid_xmax
    computed = False
    for i in range(iteration):
        computed = False
        if tx >= i + 1 and tx <= PF_BLOCK - i - 2 and is_valid:
            computed = True
            ...
    if computed:
        dst[xidx] = result[tx]          # in bounds: is_valid held where computed became True

`computed` is True only where its one `computed = True` ran, and the facts in scope there still
hold at `if computed:` when every name they read is *stable*: bound once at most, outside any
loop (or never: parameters, globals). So a name is a flag when every binding of it is
`name = True` or `name = False` (a plain assignment of the constant), exactly one of them True,
and it is no parameter; `if flag:` then adds the stable facts of its True assignment, and the
facts of the conjuncts of the guards around it (`if a and b:` whose body holds it) that read
stable names only and nothing else (no call, no subscript but `x.shape[k]`): such a conjunct
has the value it had there. Facts and conjuncts that read a name bound in a loop (`i` above)
are left out: they held for an earlier value.
"""
from __future__ import annotations

import ast

from .trees import walk

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
          ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class FlagFacts:
    def __init__(self, fn: ast.FunctionDef, body: list):
        self.flags: dict[str, int] = {}      # flag -> id() of its one True assignment
        self.known: dict[str, list] = {}     # flag -> the stable facts at its True assignment
        self.conjuncts: dict[str, list] = {}  # flag -> stable conjuncts of the guards around it
        self.unstable: set = set()
        if not any(isinstance(n, ast.Assign) and len(n.targets) == 1 and
                   isinstance(n.targets[0], ast.Name) and
                   _constant_bool(n, n.targets[0].id) is True
                   for stmt in body for n in walk(stmt)):
            return              # no `name = True`: no flag (one walk, not the bindings')
        bindings: dict[str, list] = {}       # name -> [(node, in a loop)]
        for stmt in body:
            _bindings(stmt, False, bindings)
        declared = {n for stmt in body for node in walk(stmt)
                    if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        params |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
        self.unstable = {name for name, found in bindings.items()
                         if len(found) > 1 or any(loop for _, loop in found)} | declared
        for name, found in bindings.items():
            values = [_constant_bool(node, name) for node, _ in found]
            if name not in params and name not in declared and None not in values and \
                    values.count(True) == 1:
                self.flags[name] = id(found[values.index(True)][0])
        wanted = set(self.flags.values())
        for stmt in body:
            _guarded(stmt, [], wanted, self._found)

    def _found(self, node_id, tests) -> None:
        name = next(n for n, i in self.flags.items() if i == node_id)
        self.conjuncts[name] = [c for t in tests for c in _conjuncts(t) if self._stable(c)]

    def _stable(self, expr) -> bool:
        for n in walk(expr):
            if isinstance(n, ast.Name) and n.id in self.unstable:
                return False
            if isinstance(n, (ast.Call, ast.NamedExpr, ast.Lambda, ast.IfExp, ast.Await,
                              ast.Yield, ast.YieldFrom, ast.comprehension)):
                return False
            if isinstance(n, ast.Subscript) and not (
                    isinstance(n.value, ast.Attribute) and n.value.attr == "shape" and
                    isinstance(n.slice, ast.Constant)):
                return False
        return True

    def assigned(self, stmt, facts) -> None:
        """`stmt` runs with `facts` in scope: the True assignment of a flag?"""
        for name, node_id in self.flags.items():
            if id(stmt) == node_id:
                self.known[name] = [f for f in facts if not f.deps & self.unstable]

    def implied(self, test, derive) -> list:
        """The facts `test` being true implies (a flag's: see the module doc); `derive(expr)`:
        the facts of a condition `expr` that holds here."""
        if not (isinstance(test, ast.Name) and test.id in self.flags and test.id in self.known):
            return []
        return list(self.known[test.id]) + [f for c in self.conjuncts.get(test.id, ())
                                            for f in derive(c)]


def _constant_bool(node, name):
    """True / False: `name = True` / `name = False`; None: any other binding."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], ast.Name) and node.targets[0].id == name and \
            isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
        return node.value.value
    return None


def _conjuncts(test) -> list:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in _conjuncts(v)]
    return [test]


def _guarded(node, tests, wanted, found) -> None:
    """found(id, tests) for each statement of `wanted`: the tests of the `if`s whose body
    holds it (in a nested function: none)."""
    if id(node) in wanted:
        found(id(node), list(tests))
    if isinstance(node, ast.If):
        for stmt in node.body:
            _guarded(stmt, tests + [node.test], wanted, found)
        for stmt in node.orelse:
            _guarded(stmt, tests, wanted, found)
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            _guarded(child, tests, wanted, found)


def _bindings(node, in_loop: bool, out: dict) -> None:
    """Every binding of a name under `node`: (the Assign statement, or the binding node)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], ast.Name):
        out.setdefault(node.targets[0].id, []).append((node, in_loop))
        _bindings(node.value, in_loop, out)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        out.setdefault(node.id, []).append((node, in_loop))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.setdefault(node.name, []).append((node, True))
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            out.setdefault((alias.asname or alias.name).split(".")[0], []).append((node, True))
    inside = in_loop or isinstance(node, _LOOPS)
    for child in ast.iter_child_nodes(node):
        _bindings(child, inside, out)


__all__ = ["FlagFacts"]
