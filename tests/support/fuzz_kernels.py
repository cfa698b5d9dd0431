"""Random numba-cuda kernels for the differential fuzzer of check elimination.

`generate(seed)` writes one module -- checked device functions and one kernel -- from a small
grammar: affine and non-affine index expressions (`k + 1`, `a.shape[1] - 1 - k`, `i * j`, `q // 4`,
`q % 3`, loads `idx[e]`), guards (`<`, `<=`, chained, `and`/`or`/`not`, early `return`, `continue`,
`break`), `for` over `range` with one to three arguments (negative and non-unit steps, empty
ranges, grid-stride), bounded `while` loops, loop variables reassigned in the body (`k += 1`, tuple
swaps, an inner loop reusing the name), nested loops, arrays of 1-3 dimensions and several integer
dtypes, shared arrays (with barriers) and local arrays, device functions that write their
arguments, and atomics. Shapes, data and the launch geometry are random and small, so one kernel
runs in milliseconds on the simulator.

Every kernel is deterministic on the simulator whatever order it runs the threads in, so that
two runs can be compared: inputs are only read; `out`, `o1` and shared arrays are only written the
value their index determines (1, or the index itself); `priv[t0, ...]` and `res[t0]` are the
thread's own; `hist` only takes atomic additions and subtractions (which commute). While loops
run a bounded number of times (a thread whose check fails in a `while True` loop is not the
subject here).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import numpy as np

DTYPES = ("int32", "int32", "int32", "int64", "uint8", "int8", "uint32", "int16")
ROLES = ("input", "index", "output", "private", "hist", "result")


@dataclass
class ArraySpec:
    name: str
    shape: tuple
    dtype: str
    role: str           # one of ROLES


@dataclass
class ScalarSpec:
    name: str
    value: int
    kind: str           # "int" (a Python int), "float" or a NumPy dtype name


@dataclass
class FuzzKernel:
    seed: int
    source: str                 # the module's text
    kernel: str                 # the kernel's name in it
    griddim: tuple
    blockdim: tuple
    params: list = field(default_factory=list)

    @property
    def threads(self) -> int:
        return int(np.prod(self.griddim) * np.prod(self.blockdim))

    def spec(self) -> dict:
        """Everything but the source, as plain data (`from_spec` makes the kernel again)."""
        params = [dict(scalar=(p.name, p.value, p.kind)) if isinstance(p, ScalarSpec) else
                  dict(array=(p.name, tuple(p.shape), p.dtype, p.role)) for p in self.params]
        return dict(seed=self.seed, kernel=self.kernel, griddim=tuple(self.griddim),
                    blockdim=tuple(self.blockdim), params=params)

    @staticmethod
    def from_spec(spec: dict, source: str) -> "FuzzKernel":
        params = [ScalarSpec(*p["scalar"]) if "scalar" in p else ArraySpec(*p["array"])
                  for p in spec["params"]]
        return FuzzKernel(spec["seed"], source, spec["kernel"], tuple(spec["griddim"]),
                          tuple(spec["blockdim"]), params)

    def arguments(self) -> list:
        """Fresh arguments (the same for the same kernel)."""
        rng = np.random.default_rng(self.seed)
        args = []
        for p in self.params:
            if isinstance(p, ScalarSpec):
                args.append(p.value if p.kind in ("int", "float") else
                            np.dtype(p.kind).type(p.value))
                continue
            info = np.iinfo(p.dtype)
            if p.role in ("input", "index"):
                top = 8 if p.role == "input" else max(p.shape[0] if p.shape else 1, 1) + 3
                low = max(-3, info.min)
                data = rng.integers(low, min(top, info.max) + 1, size=p.shape)
                extremes = rng.random(p.shape) < 0.03        # the dtype's own limits, rarely
                data = np.where(extremes, rng.choice([info.min, info.max], size=p.shape), data)
                args.append(data.astype(p.dtype))
            else:
                args.append(np.zeros(p.shape, dtype=p.dtype))
        return args


class _Scope:
    def __init__(self):
        self.ints = []          # names of integer variables usable in expressions
        self.loops = []         # enclosing loop kinds ("for"/"while")
        self.loop_vars = []     # for-loop variables in scope


class _Generator:
    MAX_DEPTH = 3

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.lines: list[str] = []
        self.counter = 0
        # min/max/conditional indices (_choice) draw from their own stream: every seed keeps
        # the statements it had before they were added, and gets some of these in between.
        self.r2 = random.Random(seed * 7919 + 13)
        # Device calls given views and local arrays, device functions reading constant indices
        # (call_facts.py): a stream of their own too.
        self.r3 = random.Random(seed * 7919 + 29)
        # Steps made of a small loop variable and multiples of them (_aligned): their own too.
        self.r4 = random.Random(seed * 7919 + 43)

    # -- helpers ------------------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    # -- the kernel's arrays --------------------------------------------------------------------
    def plan(self):
        r = self.r
        if self.chance(0.3):
            self.griddim, self.blockdim = (r.randint(1, 2), 1), (r.randint(1, 3), r.randint(1, 3))
        else:
            self.griddim, self.blockdim = (r.randint(1, 2),), (r.randint(1, 5),)
        threads = int(np.prod(self.griddim) * np.prod(self.blockdim))

        def shape(ndim, top=6):
            return tuple(r.choice([0, 1, 2, 3, 4, 5, top, r.randint(1, 9)]) if self.chance(0.1)
                         else r.randint(1, top) for _ in range(ndim))

        self.arrays = {
            "a": ArraySpec("a", shape(r.randint(1, 3)), r.choice(DTYPES), "input"),
            "b": ArraySpec("b", shape(r.randint(1, 2)), r.choice(DTYPES), "input"),
            "idx": ArraySpec("idx", shape(1, 8), r.choice(DTYPES), "index"),
            "c": ArraySpec("c", shape(1, 8), r.choice(DTYPES), "index"),
            "out": ArraySpec("out", shape(r.randint(1, 3)), "int32", "output"),
            "o1": ArraySpec("o1", shape(1, 8), "int32", "output"),
            "o2": ArraySpec("o2", shape(1, 8), "int32", "output"),
            "priv": ArraySpec("priv", (threads, r.randint(1, 6)), "int64", "private"),
            "hist": ArraySpec("hist", shape(r.randint(1, 2)), "int64", "hist"),
            "res": ArraySpec("res", (threads,), "int64", "result"),
        }
        self.scalars = [self.scalar("n"), self.scalar("m"),
                        ScalarSpec("xf", r.choice([2.5, 3.5, -0.5, 4.0]), "float")]
        self.writable = ["out", "o1", "dst"]
        self.readable = ["a", "b", "idx", "src"]

    def scalar(self, name) -> ScalarSpec:
        r = self.r
        value = r.randint(-2, 9)
        kind = "int"
        if self.chance(0.15):
            kind = r.choice(["int32", "uint32", "int64", "uint8"])
            if self.chance(0.3):
                info = np.iinfo(kind)
                value = r.choice([info.max, info.min, info.max - 1])
            value = int(np.array(value).astype(kind))
        return ScalarSpec(name, value, kind)

    def ndim(self, name) -> int:
        if name in self.arrays:
            return len(self.arrays[name].shape)
        return self.local_ndims[name]

    def extent(self, name, axis) -> str:
        if name in self.local_shapes:
            return str(self.local_shapes[name][axis])
        return f"{name}.shape[{axis}]"

    # -- expressions ----------------------------------------------------------------------------
    def atom(self, scope) -> str:
        r = self.r
        roll = r.random()
        if roll < 0.55 and scope.ints:
            return r.choice(scope.ints)
        if roll < 0.7:      # (NumPy refuses `x + -2` for an unsigned x: no negative operands)
            return str(r.randint(0, 7))
        if roll < 0.8:
            return r.choice(["n", "m"])
        if roll < 0.92:
            name = r.choice(self.readable + self.writable + self.shared_names)
            return f"{name}.shape[{r.randrange(self.ndim(name))}]"
        return r.choice(["cuda.threadIdx.x", "cuda.blockIdx.x", "cuda.blockDim.x",
                         "cuda.grid(1)" if len(self.griddim) == 1 else "cuda.threadIdx.y"])

    def expr(self, scope, depth=0) -> str:
        r = self.r
        if depth >= 2 or self.chance(0.35):
            return self.atom(scope)
        kind = r.random()
        x = self.expr(scope, depth + 1)
        if kind < 0.35:
            return f"{x} {r.choice(['+', '-'])} {r.randint(1, 3)}"
        if kind < 0.5:
            return f"{x} {r.choice(['+', '-'])} {self.expr(scope, depth + 1)}"
        if kind < 0.58:
            return f"{r.choice([2, 3])} * {x}"
        if kind < 0.64:
            return f"({x}) * ({self.expr(scope, depth + 1)})"
        if kind < 0.72:
            return f"({x}) {r.choice(['//', '%'])} {r.randint(2, 4)}"
        if kind < 0.8:
            return f"{r.choice(['min', 'max'])}({x}, {self.expr(scope, depth + 1)})"
        if kind < 0.9:
            return self.load("idx", scope, depth + 1)
        if kind < 0.96:
            return self.bits(x, scope, depth)
        return f"-{x}" if not x.startswith("-") else x

    def bits(self, x, scope, depth) -> str:
        """Masks, shifts and divisions by non-constant divisors (bits.py, divisions.py): a mask
        bounds any integer; a divisor may be 0 (both modes must fail alike) or provably not."""
        r = self.r
        roll = r.random()
        if roll < 0.3:
            return f"({x}) & {r.choice([0, 1, 3, 7, 255])}"
        if roll < 0.5:
            return f"{r.choice([1, 2, 3])} << (({x}) & {r.choice([1, 3, 7])})"
        if roll < 0.6:
            return f"({x}) >> {r.randint(0, 3)}"
        y = self.expr(scope, depth + 1)
        divisor = r.choice([f"({y})", f"(({y}) & 3) + 1", f"1 << (({y}) & 3)", f"({y}) & 3"])
        return f"({x}) {r.choice(['//', '%'])} ({divisor})"

    def index(self, name, axis, scope) -> str:
        """An index for axis `axis` of `name`: mostly near the extent, where mistakes show."""
        r = self.r
        roll = r.random()
        var = r.choice(scope.ints) if scope.ints else "0"
        extent = self.extent(name, axis)
        if roll < 0.3:
            return var
        if roll < 0.45:
            return f"{var} {r.choice(['+', '-'])} {r.randint(1, 2)}"
        if roll < 0.55:
            return f"{extent} - 1 - {var}"
        if roll < 0.62:
            return f"{extent} - {r.randint(0, 2)}"
        if roll < 0.7:
            return str(r.randint(-2, 5))
        return self.expr(scope, 1)

    def subscript(self, name, scope) -> str:
        comps = [self.index(name, ax, scope) for ax in range(self.ndim(name))]
        return f"{name}[{', '.join(comps)}]"

    def load(self, name, scope, depth=0) -> str:
        if name == "idx" and depth > 2:
            return "0"
        return self.subscript(name, scope)

    def cond(self, scope) -> str:
        r = self.r
        roll = r.random()
        name = r.choice(self.readable + self.writable + self.shared_names + self.local_names)
        axis = r.randrange(self.ndim(name))
        extent = self.extent(name, axis)
        e = self.index(name, axis, scope) if self.chance(0.6) else self.expr(scope)
        if roll < 0.25:
            return f"{e} {r.choice(['<', '<='])} {extent}"
        if roll < 0.4:
            return f"0 <= {e} < {extent}"
        if roll < 0.5:
            return f"{e} >= 0 and {e} < {extent}"
        if roll < 0.58:
            return f"not ({e} >= {extent})"
        if roll < 0.66:
            return f"{e} < {extent} or {self.expr(scope)} > {r.randint(0, 3)}"
        if roll < 0.74:
            return f"{e} {r.choice(['>=', '>', '=='])} {extent}"
        if roll < 0.82:
            return f"{e} < {r.choice(['n', 'm'])}"
        return f"{self.expr(scope)} {r.choice(['<', '<=', '>', '>=', '==', '!='])} " \
               f"{self.expr(scope)}"

    # -- statements -----------------------------------------------------------------------------
    def block(self, scope, indent, depth, budget):
        count = self.r.randint(1, budget)
        for _ in range(count):
            self.statement(scope, indent, depth)

    def statement(self, scope, indent, depth):
        r = self.r
        roll = self.r2.random()
        if roll < 0.12:
            self._choice(scope, indent, depth)
        elif roll < 0.17 and depth < self.MAX_DEPTH:
            self._scan(scope, indent, depth)
        elif roll > 0.94 and depth < self.MAX_DEPTH:
            self._aligned(scope, indent, depth)
        choices = [("assign", 3), ("acc", 2), ("store", 2), ("priv", 1.5), ("atomic", 1),
                   ("guarded", 4), ("exit_then_access", 2),
                   ("loop_over", 3 if depth < self.MAX_DEPTH else 0), ("walrus", 0.15),
                   ("two_step_guard", 1.5),
                   ("if", 2 if depth < self.MAX_DEPTH else 0),
                   ("exit", 1.5), ("for", 2.5 if depth < self.MAX_DEPTH else 0),
                   ("while", 0.7 if depth < self.MAX_DEPTH else 0),
                   ("reassign", 2.5 if scope.loop_vars else 0),
                   ("device", 1 if self.devices else 0),
                   ("local", 1.5 if self.local_names else 0), ("rebind", 0.7)]
        kinds, weights = zip(*choices)
        getattr(self, "_" + r.choices(kinds, weights)[0])(scope, indent, depth)

    def _choice(self, scope, indent, depth):
        """An index through min/max, a clamp or a conditional expression -- written in place,
        bound to a name first (a single definition where its variables are never rebound),
        or accessed under a boolean bound to a name -- and near misses of each (draws from
        self.r2 only)."""
        r = self.r2
        name = r.choice(self.readable + self.writable + self.shared_names + self.local_names)
        extent = self.extent(name, 0)
        var = r.choice(scope.ints) if scope.ints else "0"
        other = r.choice(scope.ints + ["n", "m", "0"]) if scope.ints else "n"
        shift = r.choice(["", " + 1", " - 1"])
        forms = [f"min(max({var}{shift}, 0), {extent} - 1)", f"max({var} - 1, 0)",
                 f"min({var} + 1, {extent} - 1)", f"min({var} + 1, {extent})",
                 f"max({var} - 1, -1)", f"max(min({var}{shift}, {extent} - 1), 0)",
                 f"min({var}, {other}, {extent} - 1)", f"max({var}, {other})",
                 f"min({var}, {other})", f"max({var}{shift}, {r.choice(['n', 'm'])})",
                 f"{var} + 1 if {var} + 1 < {extent} else {var}",
                 f"{var} - 1 if {var} >= 1 else 0",
                 f"{var} if {var} < {extent} else {extent} - 1",
                 f"{var}{shift} if {other} {r.choice(['<', '>=', '=='])} {var} else {other}",
                 f"(min({var}, {extent} - 1) if {var} >= 0 else 0)"]
        index = r.choice(forms)
        guard = r.choice(["", f"{var} < {extent}", f"0 <= {var} < {extent}",
                          f"{var} >= 1 and {var} < {extent} - 1", f"{var} <= {extent}",
                          f"{extent} >= 1", f"{var} >= 0 and {other} >= 0"])
        style = r.random()
        if style < 0.4:                 # bound to a name first
            bound = self.fresh("c")
            self.emit(indent, f"{bound} = {index}")
            index = bound
        elif style < 0.55:              # a boolean bound to a name
            ok = self.fresh("ok")
            self.emit(indent, f"{ok} = {guard or 'True'}")
            guard = ok if r.random() < 0.8 else f"not {ok}"
        if guard:
            self.emit(indent, f"if {guard}:")
            indent += 1
        comps = [f"{index}"] + ["0"] * (self.ndim(name) - 1)
        target = self.access(name, comps)
        if name in self.writable:
            self.emit(indent, f"{target} = 1")
        elif name == "hist":
            self.emit(indent, f"cuda.atomic.add(hist, ({', '.join(comps)},), 1)")
        else:
            self.emit(indent, f"acc += {target}")

    def _aligned(self, scope, indent, depth):
        """A loop over a few values of `k`, a step made of it (`1 << k`, `2 * k + 1`), a guard
        that an index is a multiple of the step (or not), and an access a fraction of the step
        further on: backprop's tree reduction, which value_cases.py proves value by value, and
        near misses of it -- a step that does not divide the extent, a negated guard, a step
        rebound after the test's (draws from self.r4 only)."""
        r = self.r4
        name = r.choice(self.readable + self.writable + self.shared_names + self.local_names)
        k, p = self.fresh("kv"), self.fresh("pv")
        lo = r.randint(0, 2)
        var = r.choice(scope.ints) if scope.ints else "0"
        step = r.choice([f"1 << {k}", f"1 << {k}", f"2 * {k} + 1", f"3 << {k}", f"{k} + 1",
                         f"1 << ({k} + 1)"])
        test = r.choice([f"{var} % {p} == 0", f"{var} % {p} == 0", f"{var} % {p} != 0",
                         f"{var} % {p} == 1", f"{var} >= 0 and {var} % {p} == 0",
                         f"{var} % {p} == 0 and {var} < {self.extent(name, 0)}"])
        index = r.choice([f"{var} + {p} // 2", f"{var} + {p} // 2", f"{var} + {p} - 1",
                          f"{var} + {p} // 2 + 1", f"{var} + {p}", f"{var} - {p} // 2"])
        self.emit(indent, f"for {k} in range({lo}, {lo + r.randint(1, 4)}):")
        self.emit(indent + 1, f"{p} = {step}")
        if r.random() < 0.15:
            self.emit(indent + 1, f"{p} = {p} + {r.choice(['1', k])}")
        self.emit(indent + 1, f"if {test}:")
        comps = [index] + ["0"] * (self.ndim(name) - 1)
        target = self.access(name, comps)
        if name in self.writable:
            self.emit(indent + 2, f"{target} = 1")
        elif name == "hist":
            self.emit(indent + 2, f"cuda.atomic.add(hist, ({', '.join(comps)},), 1)")
        else:
            self.emit(indent + 2, f"acc += {target}")

    def _scan(self, scope, indent, depth):
        """A loop whose variable only grows (`d *= 2`, `off += 3`) or halves (`s //= 2`),
        with accesses its bounds prove and near misses (invariants.py; draws from self.r2)."""
        r = self.r2
        name = r.choice(self.readable + self.writable + self.shared_names + self.local_names)
        extent = self.extent(name, 0)
        var = r.choice(scope.ints) if scope.ints else "0"
        v = self.fresh("s")
        kind = r.choice(["double", "double", "halve", "halve", "step", "falling", "falling"])
        if kind == "falling":          # for v in range(lo, hi, -step): hi < v <= lo
            lo = r.choice([extent, f"{extent} - 1", "TILE", str(r.randint(0, 6))])
            hi = r.choice(["-1", "-1", "0", "-2", "1"])
            self.emit(indent, f"for {v} in range({lo}, {hi}, -{r.choice([1, 1, 2])}):")
            update = None
        elif kind == "double":
            self.emit(indent, f"{v} = {r.choice(['1', '2', '1'])}")
            self.emit(indent, f"while {v} < {r.choice([extent, 'n', 'm', 'cuda.blockDim.x'])}:")
            update = f"{v} *= {r.choice([2, 2, 3])}"
        elif kind == "halve":
            start = r.choice([extent, "cuda.blockDim.x", "n", "1"])
            self.emit(indent, f"{v} = {start} // {r.choice([2, 2, 1])}")
            self.emit(indent, f"while {v} > 0:")
            update = f"{v} //= {r.choice([2, 2, 3])}"
        else:
            self.emit(indent, f"{v} = {r.choice(['0', '1'])}")
            self.emit(indent, f"while {v} < {r.choice([extent, '8', 'TILE'])}:")
            update = f"{v} += {r.choice([1, 2, 3])}"
        index, guard = r.choice([(f"{var} - {v}", f"{var} >= {v}"),
                                 (f"{var} + {v}", f"{var} < {v}"),
                                 (f"{var} + {v}", f"{var} + {v} < {extent}"),
                                 (f"{extent} - {v}", ""), (f"{v} - 1", ""),
                                 (f"{v}", f"{v} < {extent}"), (f"{var} - {v}", "")])
        if guard:
            self.emit(indent + 1, f"if {guard}:")
        comps = [index] + ["0"] * (self.ndim(name) - 1)
        target = self.access(name, comps)
        inner = indent + 2 if guard else indent + 1
        if name in self.writable:
            self.emit(inner, f"{target} = 1")
        elif name == "hist":
            self.emit(inner, f"cuda.atomic.add(hist, ({', '.join(comps)},), 1)")
        else:
            self.emit(inner, f"acc += {target}")
        if r.random() < 0.15 and update is not None:   # a plain reassignment in the loop
            self.emit(indent + 1, f"if {var} > {r.randint(0, 3)}:")
            self.emit(indent + 2, f"{v} = {r.choice(['-1', '0', '1', v + ' - 1'])}")
            self.emit(indent + 2, "break")
        if update is not None:
            self.emit(indent + 1, update)

    def _assign(self, scope, indent, depth):
        target = self.r.choice(self.locals)
        if self.chance(0.3):
            self.emit(indent, f"{target} {self.r.choice(['+=', '-='])} {self.r.randint(1, 2)}")
        else:
            self.emit(indent, f"{target} = {self.expr(scope)}")

    # -- accesses in the patterns elimination proves (and near misses of them) --------------------
    def near(self, scope) -> str:
        """A variable, maybe shifted by one: what guards and indices are made of."""
        var = self.r.choice(scope.ints) if scope.ints else "0"
        roll = self.r.random()
        if roll < 0.55:
            return var
        if roll < 0.85:
            return f"{var} {self.r.choice(['+', '-'])} 1"
        return f"{var} + {self.r.choice(['n', 'm'])}" if self.chance(0.5) else \
            f"2 * {var}"

    def guard_for(self, name, axis, e) -> str:
        """A test that (maybe) keeps `e` inside axis `axis` of `name`, or nearly."""
        r = self.r
        extent = self.extent(name, axis)
        if self.chance(0.12):                      # a near miss: the wrong array or off by one
            other = r.choice(self.readable + self.writable)
            extent = r.choice([f"{other}.shape[0]", f"{extent} + 1"])
        upper = r.choice([f"{e} < {extent}", f"not ({e} >= {extent})", f"{extent} > {e}",
                          f"{e} <= {extent} - 1", f"{e} < xf", f"{e} <= {extent}"
                          if self.chance(0.15) else f"{e} < {extent}"])
        lower = r.choice([f"{e} >= 0", f"0 <= {e}", f"-1 < {e}", ""])
        if lower and self.chance(0.3):
            return f"0 <= {e} < {extent}"
        return f"{lower} and {upper}" if lower else upper

    def access(self, name, comps) -> str:
        return f"{name}[{', '.join(comps)}]"

    def _guarded(self, scope, indent, depth):
        """if <e in bounds>: <access with e>"""
        name = self.r.choice(self.readable + self.writable + self.shared_names + self.local_names)
        comps, guards = [], []
        for axis in range(self.ndim(name)):
            e = self.near(scope)
            comps.append(e)
            if self.chance(0.85):
                guards.append(self.guard_for(name, axis, e))
        self.emit(indent, f"if {' and '.join(guards) or 'True'}:")
        self.use(name, comps, scope, indent + 1)
        if self.chance(0.3):
            self.statement(scope, indent + 1, depth + 1)

    def _two_step_guard(self, scope, indent, depth):
        """A bound reached in two steps (`e < n and n <= extent`, `e + 1 < extent`): proofs that
        add facts, where a value that wraps (n near 2**31) or is not an integer (xf) breaks
        the sum."""
        r = self.r
        name = r.choice(self.readable + self.writable)
        e = r.choice(scope.ints) if scope.ints else "0"
        extent = self.extent(name, 0)
        bound = r.choice(["n", "m", "xf", r.choice(self.locals)])
        test = r.choice([f"{e} < {bound} and {bound} <= {extent}",
                         f"{e} < {bound} and {bound} - 1 < {extent}",
                         f"{e} + 1 < {extent}", f"{e} + {bound} < {extent} and {bound} >= 0",
                         f"{e} - 1 < {bound} and {bound} < {extent}"])
        self.emit(indent, f"if {e} >= 0 and {test}:")
        self.use(name, [e] + ["0"] * (self.ndim(name) - 1), scope, indent + 1)

    def _exit_then_access(self, scope, indent, depth):
        """if <e out of bounds>: return / continue / break;  <access with e>"""
        r = self.r
        exits = self.returns + (["continue", "break"] if scope.loops else [])
        if not exits:
            return self._guarded(scope, indent, depth)
        name = r.choice(self.readable + self.writable + self.shared_names)
        e = self.near(scope)
        extent = self.extent(name, 0)
        test = r.choice([f"{e} >= {extent}", f"{e} < 0 or {e} >= {extent}",
                         f"not (0 <= {e} < {extent})", f"{e} > {extent}"])
        self.emit(indent, f"if {test}:")
        self.emit(indent + 1, r.choice(exits))
        if self.chance(0.2):
            self._assign(scope, indent, depth)
        comps = [e] + [self.near(scope) for _ in range(self.ndim(name) - 1)]
        self.use(name, comps, scope, indent)

    def _loop_over(self, scope, indent, depth):
        """for k in range(<extent-based bounds>): <accesses k + c>, maybe reassigning k"""
        r = self.r
        name = r.choice(self.readable + self.writable + self.shared_names + self.local_names)
        axis = r.randrange(self.ndim(name))
        extent = self.extent(name, axis)
        var = r.choice([v for v in self.loop_names if v not in scope.loop_vars] or
                       self.loop_names)
        lo = r.choice(["0", "1", "0", self.near(scope)])
        hi = r.choice([extent, f"{extent} - 1", f"{extent} + 1", "n", f"{extent} - {lo}"])
        step = r.choice([1, 1, 1, 2, "cuda.gridsize(1)" if len(self.griddim) == 1 else 3])
        if self.chance(0.08) and var in scope.ints:
            header = self.header("0", var)     # the bound is the variable's old value
        else:
            header = self.header(lo, hi, step)
        self.emit(indent, f"for {var} in {header}:")
        inner = _Scope()
        inner.ints = scope.ints + ([var] if var not in scope.ints else [])
        inner.loops = scope.loops + ["for"]
        inner.loop_vars = scope.loop_vars + [var]
        for _ in range(r.randint(1, 3)):
            roll = r.random()
            if roll < 0.6:
                comps = [self.near(inner) for _ in range(self.ndim(name))]
                comps[axis] = f"{var}{r.choice(['', '', ' + 1', ' - 1', ' - ' + lo])}"
                self.use(name, comps, inner, indent + 1)
            elif roll < 0.75:
                self._reassign(inner, indent + 1, depth + 1)
            else:
                self.statement(inner, indent + 1, depth + 1)

    def use(self, name, comps, scope, indent):
        """A load, a store or an atomic of name[comps], as the array's role allows."""
        target = self.access(name, comps)
        if name in self.writable or (name in self.local_names and self.chance(0.5)):
            self.emit(indent, f"{target} = {1 if name in self.writable else self.expr(scope)}")
        elif name == "hist":
            self.emit(indent, f"cuda.atomic.add(hist, ({', '.join(comps)},), 1)")
        else:
            self.emit(indent, f"acc += {target}")

    def _walrus(self, scope, indent, depth):
        """A guard that rebinds its own variable on the way (facts before it are stale)."""
        var = self.r.choice(self.locals)
        name = self.r.choice(self.readable + self.writable)
        self.emit(indent, f"if 0 <= {var} < {name}.shape[0] and ({var} := {var} + "
                          f"{self.r.randint(1, 3)}) > 0:")
        self.use(name, [var] + ["0"] * (self.ndim(name) - 1), scope, indent + 1)

    def _acc(self, scope, indent, depth):
        name = self.r.choice(self.readable + self.shared_names + self.local_names)
        self.emit(indent, f"acc += {self.load(name, scope)}")

    def _store(self, scope, indent, depth):
        name = self.r.choice(self.writable)
        self.emit(indent, f"{self.subscript(name, scope)} = 1")

    def _priv(self, scope, indent, depth):
        col = self.index("priv", 1, scope)
        op = self.r.choice(["=", "+="])
        self.emit(indent, f"priv[t0, {col}] {op} {self.expr(scope)}")

    def _atomic(self, scope, indent, depth):
        op = self.r.choice(["add", "sub"])      # (add and max on one element do not commute)
        comps = [self.index("hist", ax, scope) for ax in range(self.ndim("hist"))]
        at = comps[0] if len(comps) == 1 else f"({', '.join(comps)})"
        self.emit(indent, f"cuda.atomic.{op}(hist, {at}, {self.r.randint(1, 3)})")

    def _if(self, scope, indent, depth):
        self.emit(indent, f"if {self.cond(scope)}:")
        self.block(scope, indent + 1, depth + 1, 3)
        if self.chance(0.3):
            self.emit(indent, "else:")
            self.block(scope, indent + 1, depth + 1, 2)

    def _exit(self, scope, indent, depth):
        exits = self.returns + (["continue", "break"] * 2 if scope.loops else [])
        if not exits:
            return self._assign(scope, indent, depth)
        self.emit(indent, f"if {self.cond(scope)}:")
        self.emit(indent + 1, self.r.choice(exits))

    @staticmethod
    def bounded(e: str, high: bool) -> str:
        """`e` as a loop bound that cannot make the loop long: shapes, constants and thread
        indices as they are, anything a variable, a parameter or a load could make large
        clamped (`min(e, 12)`; `max(e, -12)` for a lower end)."""
        tame = re.sub(r"\w+\.shape\[\d\]", "", e)
        if not re.search(r"\b(v\d|k\d|w\d+|n|m|acc)\b|\[", tame):
            return e
        return f"min({e}, 12)" if high else f"max({e}, -12)"

    def header(self, lo, hi, step: int | str = 1) -> str:
        """range(lo, hi, step) with bounds that keep it short (see `bounded`)."""
        up = not (isinstance(step, int) and step < 0)
        lo, hi = self.bounded(lo, high=not up), self.bounded(hi, high=up)
        if step == 1:
            return f"range({hi})" if lo == "0" else f"range({lo}, {hi})"
        return f"range({lo}, {hi}, {step})"

    def _for(self, scope, indent, depth):
        r = self.r
        var = r.choice([v for v in self.loop_names if v not in scope.loop_vars] or
                       self.loop_names)      # sometimes an inner loop reuses the outer's name
        name = r.choice(self.readable + self.writable + self.shared_names)
        extent = f"{name}.shape[{r.randrange(self.ndim(name))}]"
        lo, hi = self.atom(scope), self.atom(scope)
        roll = r.random()
        if roll < 0.3:
            header = self.header("0", r.choice([extent, f"{extent} - 1", f"{extent} + 1", hi]))
        elif roll < 0.55:
            header = self.header(lo, r.choice([extent, hi, f"{extent} - {lo}"]))
        elif roll < 0.7:
            header = self.header(lo, r.choice([extent, hi]), r.choice([2, 3]))
        elif roll < 0.8:
            header = self.header(r.choice([extent + " - 1", hi]), r.choice([lo, "-1"]),
                                 r.choice([-1, -2]))
        elif roll < 0.9:
            start = "cuda.grid(1)" if len(self.griddim) == 1 else "t0"
            stride = "cuda.gridsize(1)" if len(self.griddim) == 1 else str(self.threads)
            header = f"range({start}, {extent}, {stride})"
        else:
            header = self.header(self.load("idx", scope), self.load("idx", scope))
        self.emit(indent, f"for {var} in {header}:")
        inner = _Scope()
        inner.ints = scope.ints + ([var] if var not in scope.ints else [])
        inner.loops = scope.loops + ["for"]
        inner.loop_vars = scope.loop_vars + [var]
        self.block(inner, indent + 1, depth + 1, 4)

    def _while(self, scope, indent, depth):
        counter = self.fresh("w")
        self.emit(indent, f"{counter} = 0")
        extra = f" and ({self.cond(scope)})" if self.chance(0.5) else ""
        self.emit(indent, f"while {counter} < {self.r.randint(1, 4)}{extra}:")
        self.emit(indent + 1, f"{counter} += 1")
        inner = _Scope()
        inner.ints = scope.ints + [counter]
        inner.loops = scope.loops + ["while"]
        inner.loop_vars = list(scope.loop_vars)
        self.block(inner, indent + 1, depth + 1, 3)

    def _reassign(self, scope, indent, depth):
        r = self.r
        var = r.choice(scope.loop_vars)
        roll = r.random()
        if roll < 0.4:
            self.emit(indent, f"{var} {r.choice(['+=', '-='])} {r.randint(1, 2)}")
        elif roll < 0.6:
            self.emit(indent, f"{var} = {self.expr(scope)}")
        elif roll < 0.8:
            other = r.choice(self.locals)
            self.emit(indent, f"{var}, {other} = {other}, {var}")
        else:
            self.emit(indent, f"if {self.cond(scope)}:")
            self.emit(indent + 1, f"{var} += 1")

    def _device(self, scope, indent, depth):
        fn = self.r.choice(self.devices)
        target = self.r.choice(self.locals)
        src, dst, guard = self._device_arguments(scope)
        if guard:
            self.emit(indent, f"if {guard}:")
            indent += 1
        self.emit(indent, f"{target} = {fn}({src}, {dst}, {self.expr(scope)}, {self.expr(scope)})")

    def _device_arguments(self, scope):
        """(src, dst, guard): the arrays, or windows of them (`src[k:k + 3]` under a guard
        that may be off by one, or none), or the local array; and the guard, or ''."""
        x = self.r3
        src, dst, guards = "src", "dst", []
        for which in ("src", "dst"):
            roll = x.random()
            if roll < 0.35 and scope.ints:
                # (the kernel's own parameters too: never rebound, so launch predicates
                # may prove their windows)
                base = x.choice([which, "idx", "c"] if which == "src" else [which, "o1"])
                k, w = x.choice(scope.ints), x.randint(1, 4)
                lo, hi = x.choice([(k, f"{k} + {w}"), (f"{k} - 1", f"{k} + {w - 1}"),
                                   ("", str(w)), (str(x.randint(0, 2)), f"{base}.shape[0]")])
                view = f"{base}[{lo}:{hi}]"
                if x.random() < 0.8 and lo and lo != "0":
                    slack = x.choice(["", "", " + 1"])
                    other = x.choice([base, base, "out", "a"])
                    guards.append(f"{lo} >= 0 and {hi}{slack} <= {other}.shape[0]")
                elif x.random() < 0.8 and hi and not hi.endswith("shape[0]"):
                    guards.append(f"{hi} <= {base}.shape[0]")
            elif roll < 0.5 and which == "src" and "loc" in self.local_names:
                view = "loc"
            else:
                continue
            if which == "src":
                src = view
            else:
                dst = view
        return src, dst, " and ".join(guards)

    def _rebind(self, scope, indent, depth):
        """`src` and `dst` name one of two 1-D arrays each; rebinding one changes its shape."""
        if self.chance(0.5):
            self.emit(indent, f"src = {self.r.choice(['idx', 'c'])}")
        else:
            self.emit(indent, f"dst = {self.r.choice(['o1', 'o2'])}")

    def _local(self, scope, indent, depth):
        name = self.r.choice(self.local_names)
        if self.chance(0.5):
            self.emit(indent, f"{self.subscript(name, scope)} = {self.expr(scope)}")
        else:
            self.emit(indent, f"acc += {self.subscript(name, scope)}")

    # -- device functions -------------------------------------------------------------------------
    def device_function(self, name):
        """A checked device function (src 1-D input, dst 1-D output, two ints) returning an int."""
        r = self.r
        self.emit(0, "@safekern.jit(device=True)")
        self.emit(0, f"def {name}(src, dst, p, q):")
        self.emit(1, "r = 0")
        x = self.r3
        for _ in range(x.randint(0, 2)):       # constant indices (call_facts.demands)
            c = x.choice([0, 0, 1, 2, 3, -1])
            self.emit(1, x.choice([f"r += src[{c}]", f"dst[{c}] = 1"]))
        for _ in range(r.randint(1, 3)):
            var = r.choice(["p", "q", "r"])
            roll = r.random()
            if roll < 0.3:
                self.emit(1, f"if {var} < src.shape[0]{r.choice(['', f' and {var} >= 0'])}:")
                self.emit(2, f"r += src[{var}]")
            elif roll < 0.5:
                self.emit(1, f"dst[{var}{r.choice(['', ' + 1', ' - 1'])}] = 1")
            elif roll < 0.7:
                bound = r.choice(["min(p, 12)", "src.shape[0]", "dst.shape[0]"])
                self.emit(1, f"for t in range({bound}):")
                self.emit(2, f"{r.choice(['dst[t] = 1', 'r += src[t]', 'r += src[t + q]'])}")
            elif roll < 0.85:
                self.emit(1, f"if {var} >= dst.shape[0]:")
                self.emit(2, "return r")
                self.emit(1, f"dst[{var}] = 1")
            else:
                self.emit(1, f"{var} = {var} + {r.randint(1, 2)}")
        self.emit(1, "return r + p")
        self.emit(0, "")

    # -- the module -------------------------------------------------------------------------------
    def module(self) -> FuzzKernel:
        r = self.r
        self.plan()
        self.shared_names, self.local_names = [], []
        self.local_shapes, self.local_ndims = {}, {"src": 1, "dst": 1}   # 1-D aliases
        self.locals = ["v0", "v1", "v2"]
        self.loop_names = ["k0", "k1", "k2"]
        self.devices = []
        self.emit(0, "from numba import cuda, int32, int64")
        self.emit(0, "import safekern")
        self.emit(0, f"TILE = {r.randint(1, 6)}")
        self.emit(0, "")
        if self.chance(0.25):
            for d in range(r.randint(1, 2)):
                self.devices.append(f"d{d}")
                self.device_function(f"d{d}")
        kernel = f"kern{self.seed}"
        self.threads = int(np.prod(self.griddim) * np.prod(self.blockdim))
        params = ["a", "b", "idx", "c", "out", "o1", "o2", "priv", "hist", "res", "n", "m", "xf"]
        self.emit(0, "@safekern.jit")
        self.emit(0, f"def {kernel}({', '.join(params)}):")
        scope = _Scope()
        if len(self.griddim) == 1:
            # cuda.grid(1), or its explicit form (index_forms: the same grid position)
            self.emit(1, "i = " + r.choice([
                "cuda.grid(1)", "cuda.grid(1)",
                "cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x",
                "cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x"]))
            self.emit(1, "t0 = i")
            scope.ints = ["i", "cuda.threadIdx.x"]
            linear, stride = "cuda.threadIdx.x", "cuda.blockDim.x"
        else:
            if self.chance(0.3):
                self.emit(1, "x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x")
                self.emit(1, "y = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y")
            else:
                self.emit(1, "x, y = cuda.grid(2)")
            self.emit(1, f"t0 = y * {self.griddim[0] * self.blockdim[0]} + x")
            scope.ints = ["x", "y"]
            linear = "cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x"
            stride = "cuda.blockDim.x * cuda.blockDim.y"
        self.emit(1, f"src = {r.choice(['idx', 'c'])}")
        self.emit(1, f"dst = {r.choice(['o1', 'o2'])}")
        self._swapped()
        self.emit(1, "acc = 0")
        for v in self.locals:
            self.emit(1, f"{v} = {self.expr(scope) if self.chance(0.5) else '0'}")
        scope.ints = scope.ints + self.locals + ["t0"]
        if self.chance(0.15):       # starred unpacking: the last name is the last extent
            self.emit(1, f"*_rest, {self.locals[2]} = {r.choice(['a', 'out'])}.shape")
        barriers = self.chance(0.25)
        # A thread that failed in a kernel with barriers may still run a `return` grouped
        # after the failing statement, leave before the barrier, and the block then never
        # learns of the failure (exits.py, reported in issue 17's notes): no early returns
        # there until that is fixed.
        self.returns = [] if barriers else ["return"]
        if barriers:
            self.shared(indent=1, linear=linear, stride=stride)
        if self.chance(0.25):
            size = r.randint(1, 5)
            self.local_names.append("loc")
            self.local_shapes["loc"], self.local_ndims["loc"] = (size,), 1
            self.emit(1, f"loc = cuda.local.array({size}, int64)")
            self.emit(1, f"for q in range({size}):")
            self.emit(2, "loc[q] = 2 * q")
        self.block(scope, 1, 0, 9)
        if barriers and self.chance(0.5):
            self.emit(1, "cuda.syncthreads()")
            self.block(scope, 1, 0, 3)
        self.emit(1, "res[t0] = acc")
        self.emit(0, "")
        specs = [self.arrays[p] if p in self.arrays else next(s for s in self.scalars
                                                              if s.name == p) for p in params]
        return FuzzKernel(self.seed, "\n".join(self.lines) + "\n", kernel, self.griddim,
                          self.blockdim, specs)

    def _swapped(self):
        """`src` or `dst` bound to the other parameter too, under a condition: an alias that
        aliases.py proves at launch where the two have equal shapes (draws from self.r4)."""
        r = self.r4
        for name, pair in (("src", ("idx", "c")), ("dst", ("o1", "o2"))):
            if r.random() < 0.25:
                first = next(ln for ln in self.lines if ln.strip().startswith(f"{name} = "))
                other = pair[1] if first.strip().endswith(pair[0]) else pair[0]
                self.emit(1, f"if {r.choice(['t0 % 2 == 0', 'n > 3', 'm == 0'])}:")
                self.emit(2, f"{name} = {other}")
                if r.random() < 0.6:        # mostly equal shapes: the predicates hold
                    self.arrays[pair[1]].shape = self.arrays[pair[0]].shape

    def shared(self, indent, linear, stride):
        r = self.r
        if self.chance(0.5):
            size = r.choice(["TILE", str(r.randint(1, 8)), "1024"])
            self.emit(indent, f"sm = cuda.shared.array({size}, int32)")
            self.emit(indent, f"for q in range({linear}, sm.shape[0], {stride}):")
            self.emit(indent + 1, "sm[q] = q")
        else:
            rows, cols = r.choice(["TILE", "2", "3"]), r.choice(["TILE", "4", "1"])
            self.emit(indent, f"sm = cuda.shared.array(({rows}, {cols}), int32)")
            self.emit(indent, f"for q in range({linear}, {rows} * {cols}, {stride}):")
            self.emit(indent + 1, f"sm[q // {cols}, q % {cols}] = q")
        self.emit(indent, "cuda.syncthreads()")
        self.shared_names.append("sm")
        self.local_ndims["sm"] = 1 if "q //" not in self.lines[-2] else 2


def generate(seed: int) -> FuzzKernel:
    """The kernel of one seed (the same kernel for the same seed)."""
    return _Generator(seed).module()


__all__ = ["generate", "FuzzKernel", "ArraySpec", "ScalarSpec"]
