"""Bounds that a variable keeps through every assignment: scans' and tree reductions' loop
variables (analysis only; for eliminate.py).

    d = 1                          s = cuda.blockDim.x // 2
    while d < cuda.blockDim.x:     while s > 0:
        if tid >= d:                   if tid < s:
            v = sm[tid - d]                sm[tid] += sm[tid + s]
        ...                            ...
        d *= 2                         s //= 2

Facts about `d` and `s` end at their assignments, so the loops' accesses know nothing of them.
But every value `d` ever holds is at least 1, every value of `s` at most `blockDim.x // 2`
(`2 * s <= blockDim.x`) and at least 0. For a name every binding of which is `v = e` or
`v += e`, `v *= e`, `v //= c` (nothing else: no loop or tuple target, walrus, nonlocal):

- *lower* `v >= L`, L the least static value of the plain assignments' right-hand sides: kept by
  `v += e` with `e >= 0`, by `v *= e` with `e >= 1` where `L >= 0`, by `v //= c` (`c >= 1`) where
  `L == 0`;
- *upper* `v <= U` where the one plain assignment is `v = U` and `U` reads only names never rebound
  and no memory (`c * v <= x` for `v = x // c`): kept by `v //= c` (`c >= 1`) where the lower
  bound `v >= 0` holds too.

`v += e` and `v *= e` could wrap around at 2**63 on the GPU: the pass checks, at each such
statement, that the facts holding there bound the new value below 2**62 (`verify`); where one
does not, the elimination runs again without that variable's bounds. The bounds are facts that
no assignment ends (they hold after every one, by induction from the first, a plain assignment).
"""
from __future__ import annotations

import ast

from .bindings import pure
from .linear import Fact, Form
from .parse import names_read
from .trees import walk

_KEEPS = (ast.Add, ast.Mult, ast.FloorDiv)


class Invariants:
    """The candidate bounds of one function, and their check while the pass walks it."""

    def __init__(self, body: list, bindings, lin, check_call, excluded=frozenset()):
        self.lin = lin
        self.failed: set = set()
        self.names: set = set()
        self.facts: list = []
        self.unverified: dict = {}     # id(v += e / v *= e) -> v, until the pass has seen it
        plain: dict = {}
        updates: dict = {}
        # `v += e` / `v *= e` directly in a `while v < X` (`<=`) loop's body: where the facts
        # can bound the new value (elsewhere it is no candidate, and the pass need not run
        # again for it).
        bounded: set = set()
        for node in (n for stmt in body for n in walk(stmt)):      # (one walk for all three)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name):
                plain.setdefault(node.targets[0].id, []).append(node)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                updates.setdefault(node.target.id, []).append(node)
            elif isinstance(node, ast.While) and isinstance(node.test, ast.Compare) and \
                    isinstance(node.test.left, ast.Name) and \
                    isinstance(node.test.ops[0], (ast.Lt, ast.LtE)):
                bounded.update(id(st) for st in node.body if isinstance(st, ast.AugAssign) and
                               isinstance(st.target, ast.Name) and
                               st.target.id == node.test.left.id)
        self.bounded = bounded
        for name, assigns in plain.items():
            ups = updates.get(name, [])
            if not ups or name in excluded or name not in lin.integers or \
                    bindings.counts.get(name) != len(assigns) + len(ups) or \
                    name in bindings.escaping or name in bindings.launch_params:
                continue
            self._candidate(name, assigns, ups, check_call, bindings)

    def _candidate(self, name, assigns, ups, check_call, bindings):
        lin = self.lin
        lows = [lin.atoms.minimum(f) if f is not None and lin.exact(a.value, []) else None
                for f, a in ((lin.form(a.value), a) for a in assigns)]
        low = min(lows) if lows and None not in lows else None
        steps = []
        for up in ups:
            if not isinstance(up.op, _KEEPS) or \
                    (isinstance(up.op, (ast.Add, ast.Mult)) and id(up) not in self.bounded):
                return
            f = lin.form(up.value)
            if f is None or not pure(up.value, check_call):
                return
            steps.append((type(up.op), lin.atoms.minimum(f), f))
        v = Form(((lin.name_atom(name), 1),))
        lines = ", ".join(str(a.lineno) for a in assigns + ups)
        origin = f"the values {name} is assigned (lines {lines})"
        lower_ok = low is not None and all(
            (op is ast.Add and m is not None and m >= 0) or
            (op is ast.Mult and m is not None and m >= 1 and low >= 0) or
            (op is ast.FloorDiv and not f.terms and f.const >= 1 and low == 0)
            for op, m, f in steps)
        if lower_ok:
            self.facts.append(Fact(v.plus(-low), frozenset(), origin))
            self.names.add(name)
            for up in ups:
                if isinstance(up.op, (ast.Add, ast.Mult)):
                    self.unverified[id(up)] = name
        if lower_ok and low >= 0 and len(assigns) == 1 and \
                all(op is ast.FloorDiv and not f.terms and f.const >= 1 for op, _, f in steps):
            value = assigns[0].value
            used = names_read(value)
            if pure(value, check_call) and not any(bindings.counts.get(u) for u in used):
                upper = self._upper(value, v)
                if upper is not None and lin.exact(value, []):
                    self.facts.append(Fact(upper, frozenset(), origin))

    def _upper(self, value, v: Form):
        """U - v (or x - c*v for U = x // c, c a positive constant), or None."""
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.FloorDiv):
            x, c = self.lin.form(value.left), self.lin.form(value.right)
            if x is not None and c is not None and not c.terms and c.const >= 1:
                return x - v.scale(c.const)
        u = self.lin.form(value)
        return None if u is None else u - v

    def verify(self, stmt, facts) -> None:
        """At `v += e` / `v *= e`: the new value stays below 2**62 by the facts holding here
        (else the bounds of v are not used: the pass runs again without them)."""
        if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and
                stmt.target.id in self.names and isinstance(stmt.op, (ast.Add, ast.Mult))):
            return
        self.unverified.pop(id(stmt), None)
        new = ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value)
        if self.lin.interval(new, self.lin.local_bounds(facts)) is None:
            self.failed.add(stmt.target.id)

    def broken(self) -> set:
        """The names whose bounds do not hold: an update that may wrap, or one the pass never
        saw (inside a nested function)."""
        return self.failed | set(self.unverified.values())


__all__ = ["Invariants"]
