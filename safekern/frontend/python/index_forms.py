"""Index expressions as linear forms, and the facts that comparisons, assignments and loop ranges
give (analysis only; the arithmetic and the prover are in linear.py).

A form must stand for the value the kernel *computes*, on the GPU (numba widens integers to 64
bits; int64 and uint64 arithmetic wraps) and on the simulator (NumPy scalars keep their width:
int8 + 1 wraps at 127). So a form is used only for an *exact* expression (`Linearizer.exact`):
- a leaf -- a variable, a constant, `a.shape[k]`, `cuda.threadIdx.x`, `cuda.grid(1)` -- whatever
  its type: there is no arithmetic to wrap;
- arithmetic all of whose leaves have known bounds (constants, thread and block indices, shapes,
  and *integer names* -- Python ints on the simulator -- bounded by the facts in scope), every
  intermediate value staying below 2**62 in magnitude;
- for an index only: one leaf of unknown bounds `x` reached through `+`, `-` only, the rest as
  above. A proof then bounds the mathematical value to [0, extent); the computed value is the
  same (numba) or, if a narrow NumPy scalar wrapped, lies within [-extent, extent) too, where
  the checked access would have read the same element.

Facts come from exact comparisons only. Between values that might not be integers (a parameter, a
loaded value) a strict comparison gives a strict fact; a non-strict one between two such values
gives none (numba compares uint64 with int64 in float64, exact only below 2**53). Assumed, not
checked (docs/checks.md): an array axis has fewer than 2**53 elements. `<<`, `>>`, `&`: bits.py.
"""
from __future__ import annotations

import ast

from . import names
from .bindings import is_grid_call, walrus_targets
from .bits import bits_form, bits_interval
from .casts import IntegerCasts
from .idioms import CUDA_BOUNDS as _CUDA_BOUNDS, GRID_MAX, grid_idiom, len_of
from .choices import choice_form, choice_interval, choice_parts, typed_only
from .linear import Atoms, Fact, Form, Prover
from .loop_bounds import exact_limit, range_var_bounds
from .not_equal import not_equal_facts
from .form_exprs import FormExpressions

WIDE = 2 ** 62               # |intermediate| below this: int64 arithmetic cannot wrap
COMPARE_EXACT = 2 ** 53      # numba's float64 comparison of uint64 with int64 is exact below this
SHAPE_MAX = 2 ** 53 - 1      # assumed: no axis has more elements
SCALAR_MAX = 2 ** 24         # scalar parameters assumed within (aliases.py: checked at launch)
_NEGATE = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.NotEq: ast.Eq,
           ast.Eq: ast.NotEq}
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq}


def _scale(interval, k):
    lo, hi = interval[0] * k, interval[1] * k
    return (lo, hi) if k >= 0 else (hi, lo)


class Linearizer(FormExpressions):
    """Index expressions -> Forms, given what the function's names are (bindings.py):
    `defs` are substituted (when exact), `constants` folded, `shapes` of shared and local arrays
    are constants, `integers` are names whose values are integers, `is_cuda` recognises the
    numba.cuda module."""

    def __init__(self, *, defs, constants, shapes, integers, is_cuda, choices=frozenset(),
                 range_vars=None, casts=None, len_builtin=False, aliases=None, scalars=()):
        self.defs = defs
        # Parameters read as integers in [-SCALAR_MAX, SCALAR_MAX] (assumed, aliases.py), and
        # those of them the forms read.
        self.scalars, self.scalars_read = frozenset(scalars), set()
        integers = set(integers) | self.scalars
        self.aliases, self.alias_axes = aliases or {}, set()    # (aliases.py)
        self.len_builtin = len_builtin      # `len(a)` is `a.shape[0]`
        self.casts = casts or IntegerCasts(None)    # `types.uint32(0)` is the constant 0
        self.range_vars = range_vars or {}
        # Which of `min`, `max` (the builtins) and `x if c else y` get choice atoms
        # (choices.py); boolean single definitions (`ok = i < n`) give their facts with them.
        self.choice_kinds = frozenset(choices)
        self.constants = constants
        self.shapes = shapes
        self.integers = integers
        self.is_cuda = is_cuda
        self.atoms = Atoms()
        self.prover = Prover(self.atoms)
        self._active: set = set()
        self._exact_defs: dict = {}

    # -- atoms --------------------------------------------------------------------------------
    def name_atom(self, name) -> int:
        key = ("name", name)
        if name in self.scalars:
            self.scalars_read.add(name)
            return self.atoms.add(key, deps=(name,), integer=True, lower=-SCALAR_MAX,
                                  upper=SCALAR_MAX, node=ast.Name(name, ast.Load()))
        if key in self.atoms.info or name not in self.range_vars:
            return self.atoms.add(key, deps=(name,), integer=name in self.integers,
                                  node=ast.Name(name, ast.Load()))
        lower, upper = range_var_bounds(self, name)
        return self.atoms.add(key, deps=(name,), integer=name in self.integers,
                              node=ast.Name(name, ast.Load()), lower=lower, upper=upper)

    def shape_extent(self, array: str, axis: int):
        """The extent of axis `axis` of the array named `array`, as a Form."""
        if array in self.aliases:
            self.alias_axes.add((array, axis))
            array = self.aliases[array]
        shape = self.shapes.get(array)
        if shape is not None:
            return Form((), shape[axis]) if axis < len(shape) else None
        node = ast.Call(ast.Name(names.EXTENT, ast.Load()),
                        [ast.Name(array, ast.Load()), ast.Constant(axis)], [])
        atom = self.atoms.add(("shape", array, axis), deps=(array,), lower=0, upper=SHAPE_MAX,
                              integer=True, node=node)
        return Form(((atom, 1),))

    def _warpsize(self, node) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "warpsize" and \
            self.is_cuda(node.value)

    def _cuda_atom(self, node):
        """`cuda.threadIdx.x` and friends, `cuda.grid(1)`, `cuda.grid(2)[k]`: an atom or None."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and \
                (node.value.attr, node.attr) in _CUDA_BOUNDS and self.is_cuda(node.value.value):
            lo, hi = _CUDA_BOUNDS[(node.value.attr, node.attr)]
            return self.atoms.add(("cuda", node.value.attr, node.attr), lower=lo, upper=hi,
                                  integer=True, node=node)
        if isinstance(node, ast.Attribute) and node.attr == "laneid" and \
                self.is_cuda(node.value):
            return self.atoms.add(("cuda", "laneid"), lower=0, upper=31, integer=True,
                                  node=node)
        if is_grid_call(node, self.is_cuda, scalar=True):
            kind = node.func.attr
            return self.atoms.add(("cuda", kind, 1), lower=0 if kind == "grid" else 1,
                                  upper=GRID_MAX, integer=True, node=node)
        index = self.casts.fold(node.slice) if isinstance(node, ast.Subscript) else None
        if isinstance(index, ast.Constant) and type(index.value) is int and \
                is_grid_call(node.value, self.is_cuda, scalar=False):
            kind = node.value.func.attr
            return self.atoms.add(("cuda", kind, node.value.args[0].value, index.value),
                                  lower=0 if kind == "grid" else 1, upper=GRID_MAX,
                                  integer=True, node=node)
        return None

    def is_plain_value(self, node) -> bool:
        """A call that is a plain value -- a thread/block index, dimension or grid position, a
        checked `//` or `%` whose divisor is a positive constant -- so it may be evaluated
        again (or not at all)."""
        return self._warpsize(node) or self._cuda_atom(node) is not None or \
            self._constant_division(node) is not None or \
            (isinstance(node, ast.Call) and self._shape_subscript(node) is not None)

    def _constant_division(self, node):
        """`_sk_div_floordiv(x, TILE, ...)` (the division check of `x // TILE`) with a positive
        constant divisor -- which cannot fail -- as the plain `x // TILE`, else None."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
                node.func.id.startswith(names.DIVIDE) and len(node.args) >= 2):
            return None
        kind = node.func.id[len(names.DIVIDE):].removesuffix("_any")
        op = {"floordiv": ast.FloorDiv, "mod": ast.Mod}.get(kind)
        divisor = self.form(node.args[1])
        if op is None or divisor is None or divisor.terms or divisor.const <= 0:
            return None
        return ast.copy_location(ast.BinOp(node.args[0], op(), node.args[1]), node)

    def _shape_subscript(self, node):
        if self.len_builtin and len_of(node) is not None:     # an array's len: its rows
            return self.shape_extent(len_of(node), 0)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr == "shape" and isinstance(node.value.value, ast.Name) and \
                isinstance(node.slice, ast.Constant) and type(node.slice.value) is int and \
                node.slice.value >= 0:
            return self.shape_extent(node.value.value.id, node.slice.value)
        return None

    def _def(self, name):
        """The definition of `name` to substitute, if it is exact, else None."""
        if name not in self.defs or name in self._active:
            return None
        if name not in self._exact_defs:
            self._active.add(name)
            try:
                self._exact_defs[name] = self.exact(self.defs[name], [])
            finally:
                self._active.discard(name)
        return self.defs[name] if self._exact_defs[name] else None

    # -- forms --------------------------------------------------------------------------------
    def form(self, node) -> Form | None:
        """The linear form of an integer expression, or None."""
        node = self.casts.fold(node)
        if isinstance(node, ast.Constant):
            return Form((), node.value) if type(node.value) is int else None
        if isinstance(node, ast.Name):
            value = self._def(node.id)
            if value is not None:
                self._active.add(node.id)
                try:
                    return self.form(value)
                finally:
                    self._active.discard(node.id)
            if node.id in self.constants:
                return Form((), self.constants[node.id])
            return Form(((self.name_atom(node.id), 1),))
        if self._warpsize(node):
            return Form((), 32)
        atom = self._cuda_atom(node)
        if atom is not None:
            return Form(((atom, 1),))
        shape = self._shape_subscript(node)
        if shape is not None:
            return shape
        division = self._constant_division(node)
        if division is not None:
            return self._binop(division)
        if isinstance(node, ast.UnaryOp):
            inner = self.form(node.operand)
            if inner is None:
                return None
            if isinstance(node.op, ast.USub):
                return inner.scale(-1)
            if isinstance(node.op, ast.UAdd):
                return inner
            return None
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        parts = choice_parts(self, node)
        if parts is not None:
            return choice_form(self, node, parts)
        return None

    def _binop(self, node: ast.BinOp) -> Form | None:
        left, right = self.form(node.left), self.form(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return grid_idiom(self.atoms, left + right)
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            if not left.terms:
                return right.scale(left.const)
            if not right.terms:
                return left.scale(right.const)
            return self._opaque(node, left, right, nonneg=self.atoms.nonneg(left) and
                                self.atoms.nonneg(right))
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            if not right.terms and right.const > 0:
                if not left.terms:
                    value = left.const // right.const if isinstance(node.op, ast.FloorDiv) \
                        else left.const % right.const
                    return Form((), value)
                if isinstance(node.op, ast.Mod):    # Python's (and numba's) %: in [0, divisor)
                    return self._opaque(node, left, right, nonneg=True,
                                        upper=right.const - 1)
                low, high = self.atoms.minimum(left), self.atoms.maximum(left)
                return self._opaque(node, left, right, nonneg=self.atoms.nonneg(left),
                                    lower=None if low is None else low // right.const,
                                    upper=None if high is None else high // right.const)
        bits = isinstance(node.op, (ast.LShift, ast.RShift, ast.BitAnd))
        return bits_form(self, node, left, right) if bits else None

    def _opaque(self, node, left: Form, right: Form, *, nonneg: bool, upper=None,
                lower=None) -> Form:
        deps = self.atoms.deps_of(left) | self.atoms.deps_of(right)
        key = ("term", type(node.op).__name__, left, right)
        if nonneg:
            lower = 0 if lower is None else max(lower, 0)
        atom = self.atoms.add(key, deps=deps, lower=lower, upper=upper,
                              integer=self.atoms.integer(left) and self.atoms.integer(right),
                              node=node)
        return Form(((atom, 1),))

    def deps(self, form: Form) -> frozenset:
        return self.atoms.deps_of(form)

    # -- exactness ----------------------------------------------------------------------------
    def _leaf(self, node) -> bool:
        """No arithmetic of its own (a definition substituted for a name is checked apart)."""
        return isinstance(node, (ast.Constant, ast.Name)) or self._warpsize(node) or \
            self._cuda_atom(node) is not None or self._shape_subscript(node) is not None

    def interval(self, node, local):
        """(lo, hi) of the value if every leaf is bounded and every intermediate stays below
        WIDE in magnitude, else None. `local`: bounds the facts in scope give."""
        node = self.casts.fold(node)
        if isinstance(node, ast.Constant):
            return (node.value, node.value) if type(node.value) is int else None
        if isinstance(node, ast.Name):
            value = self._def(node.id)
            if value is not None:
                return self.interval(value, local)
            if node.id in self.constants:
                return self.constants[node.id], self.constants[node.id]
            if node.id not in self.integers:
                return None         # a parameter or a loaded value: any width, any value
            atom = self.name_atom(node.id)
            lo, hi = self.atoms.bound(atom, local, False), self.atoms.bound(atom, local, True)
            return None if lo is None or hi is None else (lo, hi)
        if self._leaf(node):
            form = self.form(node)
            if form is None:
                return None
            lo, hi = self.atoms.minimum(form, local), self.atoms.maximum(form, local)
            return None if lo is None or hi is None else (lo, hi)
        parts = choice_parts(self, node)
        if parts is not None:
            return choice_interval(self, parts, local)
        division = self._constant_division(node)
        if division is not None:
            node = division
        out = None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.interval(node.operand, local)
            if inner is not None:
                out = _scale(inner, -1 if isinstance(node.op, ast.USub) else 1)
        elif isinstance(node, ast.BinOp):
            out = self._binop_interval(node, local)
        if out is None or \
                max(abs(out[0]), abs(out[1])) >= exact_limit(self, node, local, WIDE,
                                                              COMPARE_EXACT):
            return None
        return out

    def _binop_interval(self, node, local):
        left = self.interval(node.left, local)
        right = self.interval(node.right, local)
        if isinstance(node.op, (ast.LShift, ast.RShift, ast.BitAnd)):
            return bits_interval(node.op, left, right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left[0] + right[0], left[1] + right[1]
        if isinstance(node.op, ast.Sub):
            return left[0] - right[1], left[1] - right[0]
        if isinstance(node.op, ast.Mult):
            products = [a * b for a in left for b in right]
            return min(products), max(products)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right[0] == right[1] > 0:
            if isinstance(node.op, ast.Mod):
                return 0, right[0] - 1
            return left[0] // right[0], left[1] // right[0]
        return None

    def local_bounds(self, facts) -> dict:
        return self.prover.local_bounds(facts) if facts else {}

    def exact(self, node, facts, *, index: bool = False) -> bool:
        """Is the value the kernel computes for `node` its form's value? (see module doc)"""
        if self._leaf(node) or self._exact_choice(node, facts):
            return True
        local = self.local_bounds(facts)
        if self.interval(node, local) is not None:
            return True
        return index and self._one_unknown(node, local, facts)

    def _exact_choice(self, node, facts) -> bool:
        """A choice (`min`, `max`, `x if c else y`) of exact alternatives: its value is one of
        theirs (a typed-only choice's only where it is an integer: choices.py)."""
        parts = choice_parts(self, node)
        return parts is not None and self.form(node) is not None and \
            all(self.exact(expr, facts) for expr, _, _ in parts[1])

    def _one_unknown(self, node, local, facts=()) -> bool:
        """One leaf of unknown bounds, under + and - only, the other parts exact and together
        below 2**61 in magnitude: with the result proven in [0, 2**53), the unknown is below
        2**61 + 2**53 and no partial sum reaches 2**63."""
        unknown, rest = [], []

        def visit(n) -> bool:
            if (self._leaf(n) or self._exact_choice(n, list(facts))) and \
                    self.interval(n, local) is None:
                unknown.append(n)
                return len(unknown) == 1
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
                return visit(n.left) and visit(n.right)
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
                return visit(n.operand)
            part = self.interval(n, local)
            rest.append(part)
            return part is not None
        return visit(node) and len(unknown) == 1 and \
            sum(max(abs(p[0]), abs(p[1])) for p in rest) < 2 ** 61

    # -- facts ----------------------------------------------------------------------------------
    def facts(self, test, origin: str = "", negate: bool = False, scope=()) -> list[Fact]:
        """Facts that hold where `test` is true (or false, with negate); `scope`: the facts
        that hold where `test` is evaluated (they bound the variables it computes with)."""
        out = self._facts(test, origin, negate, list(scope))
        rebound = walrus_targets(test)
        if rebound:        # `i < n and (i := i + 5) ...`: i < n is about the old i
            out = [f for f in out if not (f.deps & rebound)]
        return out

    def _facts(self, test, origin, negate, scope) -> list[Fact]:
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) == negate:
                return []            # a disjunction proves nothing about either side
            out = []
            for value in test.values:
                out += self._facts(value, origin, negate, scope + out)
            return out
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._facts(test.operand, origin, not negate, scope)
        if isinstance(test, ast.Name) and self.choice_kinds and test.id in self.defs and \
                test.id not in self._active and \
                isinstance(self.defs[test.id], (ast.Compare, ast.BoolOp, ast.UnaryOp)):
            # `ok = i < n` bound once, of names never rebound: `if ok` is `if i < n`.
            self._active.add(test.id)
            try:
                return self._facts(self.defs[test.id], origin, negate, scope)
            finally:
                self._active.discard(test.id)
        if not isinstance(test, ast.Compare):
            return []
        if negate and len(test.ops) > 1:
            return []                # not (a < b < c): a disjunction
        out = []
        left = test.left
        for op, right in zip(test.ops, test.comparators):
            out += self._compare(left, op, right, origin, negate, scope + out)
            left = right
        return out

    def _compare(self, left, op, right, origin, negate, scope) -> list[Fact]:
        a, b = self.form(left), self.form(right)
        if a is None or b is None or not self.exact(left, scope) or \
                not self.exact(right, scope):
            return []
        if negate:
            op = _NEGATE.get(type(op))
            if op is None:
                return []
            op = op()
        if isinstance(op, ast.NotEq):
            if not self.choice_kinds or typed_only(a, self.atoms.choices) or \
                    typed_only(b, self.atoms.choices) or \
                    not self._exact_non_strict(a, b, left, right, scope):
                return []
            return not_equal_facts(self, a, b, origin, scope)
        if not isinstance(op, tuple(_FLIP)):
            return []
        if isinstance(op, (ast.Gt, ast.GtE)):            # a > b  ==  b < a
            a, b, left, right = b, a, right, left
            op = _FLIP[type(op)]()
        if typed_only(a, self.atoms.choices) or typed_only(b, self.atoms.choices):
            return []           # the choice may be a float here (choices.py)
        integer = self.atoms.integer(a) and self.atoms.integer(b)
        if not isinstance(op, ast.Lt) and not self._exact_non_strict(a, b, left, right, scope):
            return []
        if isinstance(op, ast.Lt):
            forms = [((b - a).plus(-1), False)] if integer else [(b - a, True)]
        elif isinstance(op, ast.LtE):
            forms = [(b - a, False)]
        else:                                            # ==
            forms = [(a - b, False), (b - a, False)]
        return [Fact(f, self.deps(f), origin, strict) for f, strict in forms]

    def _exact_non_strict(self, a, b, left, right, scope) -> bool:
        """`<=` and `==` between a possibly-uint64 value and another: exact when the other side
        is an integer below 2**53 (numba may compare the two in float64)."""
        a_int, b_int = self.atoms.integer(a), self.atoms.integer(b)
        if bool(a_int) == bool(b_int):
            return bool(a_int)     # both integers, or neither: exact only between integers
        other = right if not a_int else left
        bounds = self.interval(other, self.local_bounds(scope))
        return bounds is not None and max(abs(bounds[0]), abs(bounds[1])) < COMPARE_EXACT

    def equal(self, name: str, value, origin: str = "", scope=()) -> list[Fact]:
        """Facts of `name = value` (both directions), when value is linear and exact."""
        v = self.form(value)
        if v is None or not self.exact(value, list(scope)) or typed_only(v, self.atoms.choices):
            return []
        n = Form(((self.name_atom(name), 1),))
        return [Fact(n - v, self.deps(n - v), origin), Fact(v - n, self.deps(v - n), origin)]

    # -- proofs -----------------------------------------------------------------------------------
    def prove(self, goal: Form, facts):
        return self.prover.prove(goal, facts)

    def in_bounds(self, index: Form, extent: Form, facts):
        return self.prover.in_bounds(index, extent, facts)


__all__ = ["Linearizer", "WIDE", "SHAPE_MAX", "SCALAR_MAX", "COMPARE_EXACT"]
