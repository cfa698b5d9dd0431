"""What a function binds, for the elimination pass: names assigned anywhere, single definitions,
integer names, constants and arrays of constant shape (analysis only).

- `assigned(nodes)`: every name a statement binds, however (`=`, `+=`, tuple and starred
  targets, loop targets, `with ... as`, walrus, comprehension and lambda arguments). A fact about
  a name stops holding at any of them.
- `FunctionBindings.defs`: names bound exactly once in the function, to a pure expression of
  names that are never rebound (parameters and globals not assigned in the function, or other
  such definitions): wherever the name is read, it has that value.
- `.integers`: names every binding of which is an integer expression (of constants, thread and
  block indices, shapes, range loop variables and other such names). They are Python ints on
  the simulator and integers numba widens to 64 bits: arithmetic on them does not wrap while it
  stays below 2**62 (index_forms.py checks that).
- `.constants`: module-level and closure ints the function does not rebind (`TILE`).
- `.shapes`: single definitions `cuda.shared.array(shape, ...)` / `cuda.local.array(...)` with a
  constant shape.
- `.escaping`: names a nested function rebinds (`nonlocal i`): any call may change them.
"""
from __future__ import annotations

import ast
import builtins
from .trees import walk


def bound_names(node) -> list[str]:
    """Names bound by `node` and everything inside it (assignments, loop targets, ...)."""
    out = []
    load, name, arg = ast.Load, ast.Name, ast.arg
    for n in walk(node):
        t = type(n)                     # (exact classes: asked of every node of a body)
        if t is name:
            if type(n.ctx) is not load:
                out.append(n.id)
        elif t is arg:
            out.append(n.arg)
        elif t is ast.Global or t is ast.Nonlocal:
            out.extend(n.names)
        elif t is ast.alias:
            out.append((n.asname or n.name).split(".")[0])
        elif t is ast.ExceptHandler and n.name:
            out.append(n.name)
    return out


def assigned(nodes) -> set[str]:
    out = set()
    for node in nodes if isinstance(nodes, list) else [nodes]:
        out.update(bound_names(node))
    return out


def walrus_targets(node) -> set[str]:
    """Names an expression rebinds while it is evaluated (`(i := i + 1)`)."""
    return {n.target.id for n in walk(node) if isinstance(n, ast.NamedExpr)}


def is_range(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "range" and 1 <= len(node.args) <= 3 and not node.keywords


def is_grid_call(node, is_cuda, scalar: bool) -> bool:
    """`cuda.grid(n)` / `cuda.gridsize(n)` with a constant n; scalar: n == 1."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            node.func.attr in ("grid", "gridsize") and is_cuda(node.func.value) and
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and
            not node.keywords):
        return False
    return (node.args[0].value == 1) == scalar


def _unpacked(value, pos, count):
    """`n, m = a.shape` / `x, y = cuda.grid(2)`: element `pos` as an expression."""
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == count and \
            not any(isinstance(e, ast.Starred) for e in value.elts):
        return value.elts[pos]
    if isinstance(value, ast.Attribute) and value.attr == "shape" or isinstance(value, ast.Call):
        return ast.Subscript(value, ast.Constant(pos), ast.Load())
    return None


# The nodes `bindings` yields anything for: the passes over every node of a body skip the
# others (most nodes) without making a generator for each.
BINDING_NODES = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr, ast.With,
                 ast.FunctionDef, ast.Lambda, ast.comprehension, ast.Global, ast.Nonlocal,
                 ast.Import, ast.ImportFrom, ast.Delete, ast.ExceptHandler)


def bindings(node, check_call):
    """(name, value or None) for each binding `node` makes (value: the expression bound)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                yield target.id, node.value
            elif isinstance(target, (ast.Tuple, ast.List)):
                # After a starred element the positions count from the end: only the ones
                # before it are known.
                starred = next((p for p, e in enumerate(target.elts)
                                if isinstance(e, ast.Starred)), len(target.elts))
                for pos, elt in enumerate(target.elts):
                    if isinstance(elt, ast.Name) and pos < starred:
                        yield elt.id, _unpacked(node.value, pos, len(target.elts))
                    else:
                        for name in bound_names(elt):
                            yield name, None
            else:
                for name in bound_names(target):
                    yield name, None
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
        for name in bound_names(node.target):
            yield name, None
    elif isinstance(node, ast.With):
        for item in node.items:
            if item.optional_vars is not None:
                for name in bound_names(item.optional_vars):
                    yield name, None
    elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
        for name in bound_names(node.args):
            yield name, None
    elif isinstance(node, ast.comprehension):
        for name in bound_names(node.target):
            yield name, None
    elif isinstance(node, (ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Delete)):
        for name in bound_names(node):
            yield name, None
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name, None


def pure(node, check_call) -> bool:
    """No walrus, no checked access (loads of memory), no yield: evaluating it twice is safe."""
    for n in walk(node):
        if isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)):
            return False
        if isinstance(n, ast.Call) and check_call(n):
            return False
    return True


class FunctionBindings:
    """Function-wide facts about names (see module doc)."""

    def __init__(self, fn: ast.FunctionDef, body: list, parsed, is_cuda, check_call):
        self.is_cuda = is_cuda
        params = {a.arg for a in fn.args.args + fn.args.posonlyargs}
        counts: dict[str, int] = {}
        single: dict[str, ast.expr] = {}
        # The nodes that bind, in walk order, each with its bindings: what every question
        # below reads (all others bind nothing), found once.
        binders = [(node, list(bindings(node, check_call))) for stmt in body
                   for node in walk(stmt) if isinstance(node, BINDING_NODES)]
        for node, made in binders:
            for name, value in made:
                counts[name] = counts.get(name, 0) + 1
                single[name] = value
        self.counts = counts
        scope = dict(parsed.globals)
        scope.update(parsed.closure)
        self.constants = {k: v for k, v in scope.items()
                          if type(v) is int and k not in counts and k not in params}
        self.range_ok = "range" not in counts and "range" not in scope
        # `min`/`max` that are the builtins (not rebound in the function, not shadowed by a
        # global or closure variable), and conditional expressions: choice atoms (choices.py).
        self.choices = {n for n in ("min", "max") if n not in counts and n not in params and
                        scope.get(n, getattr(builtins, n)) is getattr(builtins, n)} | {"if"}
        # `len(a)` is `a.shape[0]` where `len` is the builtin (index_forms.py).
        self.len_builtin = "len" not in counts and "len" not in params and \
            scope.get("len", builtins.len) is builtins.len
        never = lambda n: n not in counts      # noqa: E731  (params and globals)
        self.defs: dict[str, ast.expr] = {}
        changed = True
        candidates = {n: v for n, v in single.items()
                      if counts[n] == 1 and n not in params and v is not None}
        # (each candidate's names and purity once: the rounds below ask again and again)
        reads = {name: ({x.id for x in walk(value) if isinstance(x, ast.Name)}, None)
                 for name, value in candidates.items()}
        while changed:
            changed = False
            for name, value in candidates.items():
                if name in self.defs:
                    continue
                used, is_pure = reads[name]
                if all(never(u) or u in self.defs for u in used):
                    if is_pure is None:
                        is_pure = pure(value, check_call)
                        reads[name] = used, is_pure
                    if is_pure:
                        self.defs[name] = value
                        changed = True
        self.shapes = {}
        for name, value in self.defs.items():
            shape = self._constant_shape(value)
            if shape is not None:
                self.shapes[name] = shape
        self.integers = self._integer_names(binders)
        # Names bound only as `for v in range(lo, hi[, step])` targets: [(lo, step), ...]
        # (index_forms.py bounds them: a loop runs fewer than 2**53 iterations).
        loops: dict[str, list] = {}
        for node, _ in binders:
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and \
                    self.range_ok and is_range(node.iter):
                args = node.iter.args
                lo = args[0] if len(args) > 1 else ast.Constant(0)
                step = args[2] if len(args) == 3 else ast.Constant(1)
                loops.setdefault(node.target.id, []).append((lo, step))
        self.range_vars = {n: v for n, v in loops.items()
                           if counts.get(n) == len(v) and n not in params}
        self.escaping = {name for node, _ in binders
                         if isinstance(node, (ast.Nonlocal, ast.Global)) for name in node.names}
        # Parameters the function never rebinds, by position: their values (an array's shape,
        # a scalar) are the launch's for the whole launch (launch.py's launch facts).
        self.launch_params = {a.arg: i for i, a in
                              enumerate(list(fn.args.posonlyargs) + list(fn.args.args))
                              if a.arg not in counts and a.arg not in self.escaping}
        self.entry_aliases = self._entry_aliases(fn, body, counts, single)

    def _entry_aliases(self, fn, body, counts, single) -> dict:
        """{name: (parameter, its position)} for the names that hold a rebound parameter's
        launch value all through the function: stumpy's `j = idx` at the top of its kernel,
        before `idx = searchsorted(...)` further down, makes `M_T[j]` provable at launch from
        the argument `idx`. The name is bound once, by a statement of the function's own body
        (not in a loop or branch) that assigns it the bare parameter, and no statement before
        it binds the parameter; neither is rebound by a nested function."""
        positions = {a.arg: i for i, a in
                     enumerate(list(fn.args.posonlyargs) + list(fn.args.args))}
        out, bound_before = {}, set()
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Name):
                name, param = stmt.targets[0].id, stmt.value.id
                if param in positions and param not in self.launch_params and \
                        param not in bound_before and counts.get(name) == 1 and \
                        single.get(name) is stmt.value and name not in positions and \
                        not {name, param} & self.escaping:
                    out[name] = (param, positions[param])
            bound_before.update(bound_names(stmt))
        return out

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

    def _integer_names(self, binders) -> set[str]:
        """Names every binding of which is an integer expression (greatest fixed point);
        `binders`: (node, its bindings) of the nodes that bind."""
        values: dict[str, list] = {}
        for node, made in binders:
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                ok = self.range_ok and is_range(node.iter)
                values.setdefault(node.target.id, []).append(ok or None)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                values.setdefault(node.target.id, []).append(
                    node.value if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv,
                                                       ast.Mod)) else None)
            else:
                for name, value in made:
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
            return isinstance(node.value, ast.Attribute) and node.attr in ("x", "y", "z") and \
                node.value.attr in ("threadIdx", "blockIdx", "blockDim", "gridDim") and \
                self.is_cuda(node.value.value)
        if isinstance(node, ast.Subscript):       # a.shape[0], cuda.grid(2)[k]
            return (isinstance(node.value, ast.Attribute) and node.value.attr == "shape") or \
                is_grid_call(node.value, self.is_cuda, scalar=False)
        if isinstance(node, ast.IfExp):           # either branch's value
            return self._is_int_expr(node.body, ints) and self._is_int_expr(node.orelse, ints)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in self.choices and len(node.args) >= 2 and not node.keywords:
            return all(not isinstance(a, ast.Starred) and self._is_int_expr(a, ints)
                       for a in node.args)        # min/max of ints: one of them
        if isinstance(node, ast.Call):
            return is_grid_call(node, self.is_cuda, scalar=True)
        return False


__all__ = ["FunctionBindings", "assigned", "bound_names", "walrus_targets", "is_range",
           "is_grid_call", "pure", "bindings"]
