"""Integer index expressions as linear forms, facts about them, and a small prover.

The elimination pass (`eliminate.py`) asks one question: does `0 <= e < extent` hold here? An
index expression and an extent become *linear forms* -- integer sums of *atoms* (a variable,
`a.shape[k]`, `cuda.threadIdx.x`, an opaque pure term) plus a constant. Comparisons the code
has made on the way (`if i < a.shape[0]`, `for k in range(n)`, `if i >= n: return`) are facts
`form >= 0`. The prover looks for at most two facts whose sum, subtracted from the goal, leaves a
form that is non-negative by the atoms' own bounds (threadIdx >= 0, shape >= 0, ...).

Reasoning is over mathematical integers. numba's index types are 64-bit and mixed signed /
unsigned arithmetic widens to a signed type, so a proof of 0 <= e < extent holds for the value
the kernel computes.
"""
from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field

# cuda.<attr>.<axis> with a known lower bound (and the warp size, a constant).
_CUDA_DIMS = {"threadIdx": 0, "blockIdx": 0, "blockDim": 1, "gridDim": 1}
# What the hardware guarantees (every CUDA GPU): blockDim <= (1024, 1024, 64), so threadIdx
# is below that; a `cuda.shared.array(1024, ...)` indexed by threadIdx.x needs no check.
_CUDA_MAX = {("threadIdx", "x"): 1023, ("threadIdx", "y"): 1023, ("threadIdx", "z"): 63,
             ("blockDim", "x"): 1024, ("blockDim", "y"): 1024, ("blockDim", "z"): 64}
_MAX_FACTS_PER_PROOF = 2


@dataclass(frozen=True)
class Form:
    """sum(coeff * atom) + const; atoms are hashable keys."""

    terms: tuple = ()            # sorted ((atom, coeff), ...), no zero coefficients
    const: int = 0

    @staticmethod
    def of(terms: dict, const: int = 0) -> "Form":
        return Form(tuple(sorted(((a, c) for a, c in terms.items() if c),
                                 key=lambda t: repr(t[0]))), const)

    def as_dict(self) -> dict:
        return dict(self.terms)

    def __add__(self, other: "Form") -> "Form":
        d = self.as_dict()
        for a, c in other.terms:
            d[a] = d.get(a, 0) + c
        return Form.of(d, self.const + other.const)

    def scale(self, k: int) -> "Form":
        return Form.of({a: c * k for a, c in self.terms}, self.const * k)

    def __sub__(self, other: "Form") -> "Form":
        return self + other.scale(-1)

    def plus(self, k: int) -> "Form":
        return Form(self.terms, self.const + k)

    @property
    def atoms(self):
        return [a for a, _ in self.terms]

    def coeff(self, atom) -> int:
        return self.as_dict().get(atom, 0)

    def without(self, atom) -> "Form":
        d = self.as_dict()
        d.pop(atom, None)
        return Form.of(d, self.const)


@dataclass(frozen=True)
class Fact:
    form: Form                   # form >= 0
    deps: frozenset              # variables it mentions: invalid once one is assigned
    origin: str = ""             # "line 12" -- for check_report reasons


@dataclass
class Atoms:
    """What is known about each atom: bounds, and the variables it depends on."""

    lower: dict = field(default_factory=dict)
    upper: dict = field(default_factory=dict)
    deps: dict = field(default_factory=dict)

    def add(self, atom, deps=(), lower=None, upper=None):
        self.deps.setdefault(atom, frozenset(deps))
        if lower is not None:
            self.lower[atom] = max(lower, self.lower.get(atom, lower))
        if upper is not None:
            self.upper[atom] = min(upper, self.upper.get(atom, upper))
        return atom

    def deps_of(self, form: Form) -> frozenset:
        out = set()
        for a in form.atoms:
            out |= self.deps.get(a, frozenset())
        return frozenset(out)

    def bound(self, atom, local, upper: bool):
        """The atom's own bound, tightened by local (fact-derived) bounds."""
        own = (self.upper if upper else self.lower).get(atom)
        extra = (local or {}).get(atom, (None, None))[1 if upper else 0]
        if own is None:
            return extra
        if extra is None:
            return own
        return min(own, extra) if upper else max(own, extra)

    def minimum(self, form: Form, local=None):
        """The least value of `form` by the atoms' bounds, or None if unbounded below."""
        total = form.const
        for a, c in form.terms:
            b = self.bound(a, local, upper=c < 0)
            if b is None:
                return None
            total += c * b
        return total

    def maximum(self, form: Form, local=None):
        low = self.minimum(form.scale(-1), local)
        return None if low is None else -low


class Linearizer:
    """Index expressions -> Forms, given what the function's names are.

    `defs`: names assigned once in the function, to an expression of names that are themselves
    never reassigned -- substituted by their definition. `constants`: module-level or closure
    integers (TILE). `shapes`: names of shared/local arrays of constant shape. `is_cuda`: does an
    expression denote the numba.cuda module.
    """

    def __init__(self, *, defs, constants, shapes, is_cuda):
        self.defs = defs
        self.constants = constants
        self.shapes = shapes
        self.is_cuda = is_cuda
        self.atoms = Atoms()
        self._active: set = set()

    # -- atoms --------------------------------------------------------------------------
    def _name_atom(self, name):
        return self.atoms.add(("name", name), deps=(name,))

    def shape_extent(self, array: str, axis: int):
        """The extent of axis `axis` of the array named `array`, as a Form."""
        shape = self.shapes.get(array)
        if shape is not None:
            return Form((), shape[axis]) if axis < len(shape) else None
        atom = self.atoms.add(("shape", array, axis), deps=(array,), lower=0)
        return Form(((atom, 1),))

    def cuda_attr(self, node):
        """`cuda.threadIdx.x` and friends -> an atom with its bound, else None."""
        if isinstance(node, ast.Attribute) and node.attr in ("x", "y", "z") and \
                isinstance(node.value, ast.Attribute) and node.value.attr in _CUDA_DIMS and \
                self.is_cuda(node.value.value):
            atom = ("cuda", node.value.attr, node.attr)
            return self.atoms.add(atom, lower=_CUDA_DIMS[node.value.attr],
                                  upper=_CUDA_MAX.get((node.value.attr, node.attr)))
        if isinstance(node, ast.Attribute) and node.attr in ("warpsize", "laneid") and \
                self.is_cuda(node.value):
            if node.attr == "warpsize":
                return 32
            return self.atoms.add(("cuda", "laneid"), lower=0, upper=31)
        return None

    def cuda_call(self, node):
        """`cuda.grid(1)` / `cuda.gridsize(1)` -> an atom, else None."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("grid", "gridsize") and self.is_cuda(node.func.value) and \
                len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and \
                node.args[0].value == 1 and not node.keywords:
            return self.atoms.add(("cuda", node.func.attr, 1),
                                  lower=0 if node.func.attr == "grid" else 1)
        return None

    # -- expressions ----------------------------------------------------------------------
    def form(self, node) -> Form | None:
        """The linear form of an integer expression, or None."""
        if isinstance(node, ast.Constant):
            if type(node.value) is int:
                return Form((), node.value)
            return None
        if isinstance(node, ast.Name):
            if node.id in self.defs and node.id not in self._active:
                self._active.add(node.id)
                try:
                    return self.form(self.defs[node.id])
                finally:
                    self._active.discard(node.id)
            if node.id in self.constants:
                return Form((), self.constants[node.id])
            return Form(((self._name_atom(node.id), 1),))
        attr = self.cuda_attr(node)
        if attr is not None:
            return Form((), attr) if isinstance(attr, int) else Form(((attr, 1),))
        call = self.cuda_call(node)
        if call is not None:
            return Form(((call, 1),))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr == "shape" and isinstance(node.value.value, ast.Name) and \
                isinstance(node.slice, ast.Constant) and type(node.slice.value) is int and \
                node.slice.value >= 0:
            return self.shape_extent(node.value.value.id, node.slice.value)
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
        return None

    def _binop(self, node: ast.BinOp) -> Form | None:
        left, right = self.form(node.left), self.form(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            if not left.terms:
                return right.scale(left.const)
            if not right.terms:
                return left.scale(right.const)
            return self._opaque(node, left, right, nonneg=self._nonneg(left) and
                                self._nonneg(right))
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            if not right.terms and right.const > 0:
                if not left.terms:
                    value = left.const // right.const if isinstance(node.op, ast.FloorDiv) \
                        else left.const % right.const
                    return Form((), value)
                if isinstance(node.op, ast.Mod):    # Python's %: in [0, divisor)
                    return self._opaque(node, left, right, nonneg=True,
                                        upper=right.const - 1)
                return self._opaque(node, left, right, nonneg=self._nonneg(left))
        return None

    def _nonneg(self, form: Form, local=None) -> bool:
        low = self.atoms.minimum(form, local)
        return low is not None and low >= 0

    def local_bounds(self, facts: list[Fact]) -> dict:
        """Bounds of atoms that the facts imply ({atom: (lower, upper)}), by a few rounds of
        propagation: from `c*x + rest >= 0` and bounds of `rest`, a bound of x (so from
        k == 16*t + tx and t >= 0, k >= 0)."""
        bounds: dict = {}
        for _ in range(3):
            changed = False
            for fact in facts:
                for atom, c in fact.form.terms:
                    rest = fact.form.without(atom)
                    top = self.atoms.maximum(rest, bounds)
                    if top is None:
                        continue
                    lo, hi = bounds.get(atom, (None, None))
                    if c > 0:        # c*x >= -rest >= -top
                        new = -(top // c)
                        if lo is None or new > lo:
                            bounds[atom] = (new, hi)
                            changed = True
                    else:            # -|c|*x >= -top  ->  x <= top // |c|
                        new = top // -c
                        if hi is None or new < hi:
                            bounds[atom] = (lo, new)
                            changed = True
            if not changed:
                break
        return bounds

    def _opaque(self, node, left: Form, right: Form, *, nonneg: bool, upper=None) -> Form:
        deps = self.atoms.deps_of(left) | self.atoms.deps_of(right)
        key = ("term", type(node.op).__name__, left, right)
        atom = self.atoms.add(key, deps=deps, lower=0 if nonneg else None, upper=upper)
        return Form(((atom, 1),))

    def deps(self, form: Form) -> frozenset:
        return self.atoms.deps_of(form)

    # -- facts from conditions ------------------------------------------------------------------
    def facts(self, test, origin: str = "", negate: bool = False) -> list[Fact]:
        """Facts that hold where `test` is true (or false, with negate)."""
        if isinstance(test, ast.BoolOp):
            conj = isinstance(test.op, ast.And) != negate
            if not conj:
                return []            # a disjunction proves nothing about either side
            out = []
            for value in test.values:
                out += self.facts(value, origin, negate)
            return out
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.facts(test.operand, origin, not negate)
        if not isinstance(test, ast.Compare):
            return []
        if negate and len(test.ops) > 1:
            return []                # not (a < b < c): a disjunction
        out = []
        left = test.left
        for op, right in zip(test.ops, test.comparators):
            out += self._compare(left, op, right, origin, negate)
            left = right
        return out

    def _compare(self, left, op, right, origin, negate) -> list[Fact]:
        a, b = self.form(left), self.form(right)
        if a is None or b is None:
            return []
        if negate:
            op = {ast.Lt: ast.GtE(), ast.LtE: ast.Gt(), ast.Gt: ast.LtE(), ast.GtE: ast.Lt(),
                  ast.NotEq: ast.Eq()}.get(type(op))
            if op is None:
                return []
        forms = []
        if isinstance(op, ast.Lt):
            forms = [(b - a).plus(-1)]
        elif isinstance(op, ast.LtE):
            forms = [b - a]
        elif isinstance(op, ast.Gt):
            forms = [(a - b).plus(-1)]
        elif isinstance(op, ast.GtE):
            forms = [a - b]
        elif isinstance(op, ast.Eq):
            forms = [a - b, b - a]
        return [Fact(f, self.deps(f), origin) for f in forms]

    def equal(self, name: str, value, origin: str = "") -> list[Fact]:
        """Facts of `name = value` (both directions), when value is linear."""
        v = self.form(value)
        if v is None:
            return []
        n = Form(((self._name_atom(name), 1),))
        return [Fact(n - v, self.deps(n - v), origin), Fact(v - n, self.deps(v - n), origin)]

    # -- proofs -----------------------------------------------------------------------------------
    def prove(self, goal: Form, facts: list[Fact]):
        """A list of facts whose sum shows goal >= 0 (possibly empty), or None."""
        if self._nonneg(goal):
            return []
        useful = list({f.form: f for f in facts}.values())     # one fact per form
        local = self.local_bounds(useful)
        for size in range(0, _MAX_FACTS_PER_PROOF + 1):
            for combo in itertools.combinations(useful, size):
                rest = goal
                for f in combo:
                    rest = rest - f.form
                if self._nonneg(rest, local):
                    # the facts that gave local bounds of the atoms left count too
                    extra = [f for f in useful if f not in combo and set(f.form.atoms) &
                             set(rest.atoms)] if rest.terms else []
                    return list(combo) + extra
        return None

    def in_bounds(self, index: Form, extent: Form, facts: list[Fact]):
        """Facts proving 0 <= index < extent, or None."""
        low = self.prove(index, facts)
        if low is None:
            return None
        high = self.prove((extent - index).plus(-1), facts)
        if high is None:
            return None
        return low + high


__all__ = ["Form", "Fact", "Atoms", "Linearizer"]
