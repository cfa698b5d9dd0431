"""Random OpenCL C kernels for the differential fuzzer of C launch predicates (frontend/c/launch.py).

A launch predicate lets a launch run a variant without checks it proves; a wrong one would let
an out-of-bounds access through. `generate(seed)` writes kernels whose indices are what the
prover reasons about -- work-item ids and sizes, scalar parameters (int, and uint/ulong with
values near their limits), locals defined once or reassigned, `for` loops with constant,
scalar and work-size bounds and steps (adding, doubling, halving), guards (`if`, `&&`, `?:`,
early `return`), differences under a guard (`if (x >= y) t[x - y]` and near misses), clamps
(min/max/clamp, `?:`), + - * / % & >> and casts to narrow types (wrapping), `int` arithmetic
of scalars near their limits that overflows (tested as the value computed, or wrapped: never an
address the test did not see), the private array through a pointer too, flags set under
comparisons with conditionally defined locals (`flag()`, hotspot's shape) -- into global
buffers, a `__local` and a private array; and a few launches each: global/local sizes, buffer sizes and scalar values, some for
which the predicates hold, some that break them (small buffers, large scalars, large groups).

`differences(env, kernel)` builds it with SAFEKERN_LAUNCH_PREDICATES on and off, runs every
launch on both, and compares the failure the host sees and the outputs: they must be the same.
Unsigned and narrowing conversions wrap; the generator keeps the value range of every
expression and local (`_Gen.arith`), and a signed + - * that may overflow is written in the
unsigned type of its width (WADD/LMUL..., defined wrapping): a signed overflow is undefined, and
the optimiser then computed an index in 64 bits in one build and wrapped it in the other, so
that another work-item failed first (seed 500702257). Large indices stay (`(int)u`, wrapped
products); _same_failure still takes an index that differs by a multiple of 2**32.
With more than one work-group the order in which PoCL
runs them decides which failure comes first, so the fuzzer's process runs PoCL on one thread
(tools/fuzz_elimination.py) and the in-process tests use launches of one work-group.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
from dataclasses import dataclass, field

import numpy as np

_TYPES = ["int", "int", "uint", "long", "short", "uchar", "ulong"]
_IDS = ["get_global_id(0)", "get_local_id(0)", "get_group_id(0)"]
_SIZES = ["get_global_size(0)", "get_local_size(0)", "get_num_groups(0)"]
#: the scalars whose signed arithmetic may overflow (`(int)u` with u near 2**31)
_LARGE = ("(int)u", "(int)(u >> 8)", "(long)(w >> 8)")
#: the range of each type, and the range of the values the atoms can take in `launch()`
_RANGE = {"int": (-2 ** 31, 2 ** 31 - 1), "uint": (0, 2 ** 32 - 1),
          "long": (-2 ** 63, 2 ** 63 - 1), "ulong": (0, 2 ** 64 - 1),
          "short": (-2 ** 15, 2 ** 15 - 1), "uchar": (0, 255)}
_ATOMS = {"n": ("int", 0, 200), "(int)u": ("int",) + _RANGE["int"],
          "(int)(u >> 8)": ("int", 0, 2 ** 24 - 1), "(long)(w >> 8)": ("long", 0, 2 ** 56 - 1),
          "u": ("uint",) + _RANGE["uint"], "w": ("ulong",) + _RANGE["ulong"]}
#: signed + - * made in the unsigned type of the same width: defined, two's complement wrapping
_WRAP = {("int", "+"): "WADD", ("int", "-"): "WSUB", ("int", "*"): "WMUL",
         ("long", "+"): "LADD", ("long", "-"): "LSUB", ("long", "*"): "LMUL"}


def _promoted(t):
    return "int" if t in ("short", "uchar") else t


def _common(a, b):
    """C's usual arithmetic conversions of the OpenCL types here (long is 64 bits)."""
    a, b = _promoted(a), _promoted(b)
    for t in ("ulong", "long", "uint"):
        if t in (a, b):
            return t
    return "int"


def _union(a, b, t):
    """The values of `a` or `b`, both stored in a `t`."""
    a, b = _converted(a, t), _converted(b, t)
    return (a[0], min(a[1], b[1]), max(a[2], b[2]))


def _truncated(x, k):
    """C's x / k (towards zero), exactly."""
    return -(-x // k) if x < 0 else x // k


def _converted(info, t):
    """(type, lo, hi) of a value of `info` converted to `t`: kept when it fits, else any."""
    lo, hi = _RANGE[t]
    _, a, b = info
    return (_promoted(t), a, b) if lo <= a and b <= hi else (_promoted(t), lo, hi)


@dataclass
class Launch:
    items: int            # global size
    group: int            # local size (0: left to the driver)
    out: int              # elements of out
    a: int                # elements of a
    n: int                # int n
    u: int                # uint u
    w: int                # ulong w


@dataclass
class LaunchKernel:
    seed: int
    source: str
    name: str
    launches: list = field(default_factory=list)

    def regression_file(self, diffs) -> str:
        head = "".join(f"// {line[:300]}\n" for line in diffs)
        case = {"seed": self.seed, "name": self.name,
                "launches": [vars(x) for x in self.launches]}
        return f"{head}{self.source}// FUZZ_LAUNCH_CASE {json.dumps(case)}\n"

    @staticmethod
    def from_file(path) -> "LaunchKernel":
        text = open(path).read()
        case = json.loads(text.rsplit("// FUZZ_LAUNCH_CASE ", 1)[1])
        return LaunchKernel(case["seed"], text, case["name"],
                            [Launch(**x) for x in case["launches"]])


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.vars = []            # (name, type) of the locals in scope
        self.loops = 0
        self.depth = 0
        # Signed overflow stays in what an access indexes: a condition, a loop's test, a clamp
        # of a variable -- whatever steers a branch -- is written `safe` (no `(int)u`, no
        # variable that may hold one: `big`), since a branch on an overflowed value is
        # undefined and the two builds may take different ones (the fuzzer's "only when
        # optimised" lines, seeds 102777875, 125000661, 370000518).
        self.safe = False
        self.tainted = False      # the expression being written holds a large signed value
        self.big = set()          # the locals that may hold one
        # (type, lo, hi) of every local and of the expression just written (self.info): what
        # may overflow is written to wrap (expr), the statements' small variables are small
        self.ranges = {}
        self.info = ("int", 0, 0)

    def chance(self, p):
        return self.r.random() < p

    def emit(self, text):
        self.lines.append("    " * (self.depth + 1) + text)

    def small_vars(self):
        """The locals without large values: those a difference, a flat index, a flag or a
        `+= 1` writes in plain arithmetic (their ranges are kept loosely: +-2**20)."""
        return [v for v in self.vars if v[0] not in self.big and
                -2 ** 20 <= self.ranges[v[0]][1] and self.ranges[v[0]][2] <= 2 ** 20]

    def declare(self, name, t, info):
        """A local `name` of type `t` (in self.vars) holding values of `info`."""
        self.hold(name, t, info)
        self.vars.append((name, t))

    def hold(self, name, t, info):
        """`name`, a `t`, holds values of `info` (with a margin for the `+= 1`s a loop may
        repeat)."""
        t2, lo, hi = _converted(info, t)
        tlo, thi = _RANGE[t]
        self.ranges[name] = (t2, max(lo - 16, tlo), min(hi + 16, thi))

    def bump(self, name, t):
        """`name += 1`, wrapping (defined) where the variable may be at its type's limit."""
        if (t, "+") in _WRAP and self.ranges[name][2] + 1 > _RANGE[t][1]:   # (int, long)
            return f"{name} = {_WRAP[t, '+']}({name}, 1);"
        return f"{name} += 1;"

    def atom(self):
        r = self.r
        roll = r.random()
        pick = self.small_vars() if self.safe else self.vars
        if roll < 0.3 and pick:
            name = r.choice(pick)[0]
            self.tainted |= name in self.big
            self.info = self.ranges[name]
            return name
        self.info = ("ulong", 0, 255)       # work-item ids and sizes (size_t)
        if roll < 0.55:
            return r.choice(_IDS)
        if roll < 0.65:
            return r.choice(_SIZES)
        if roll < 0.8:
            scalar = r.choice(["n", "n", "(int)u", "(int)(u >> 8)", "(long)(w >> 8)", "u", "w"])
            if scalar in _LARGE:
                if self.safe:
                    scalar = "n"
                else:
                    self.tainted = True
            self.info = _ATOMS[scalar]
            return scalar
        if roll < 0.86:             # a load: no bounds but its type's (uchar: [0, 255])
            self.info = ("int", 0, 255)
            return r.choice(["a[get_local_id(0) & 3]", "(uchar)a[get_local_id(0) & 3]",
                             "(short)a[0]"])
        c = r.choice([0, 1, 2, 3, 7, 8, 15, 16, 31, 64, 100])
        self.info = ("int", c, c)
        return str(c)

    def expr(self, depth=0):
        """An expression; `self.info` is then its (type, lo, hi). A signed + - * whose result
        may leave its type is written in the unsigned type (WADD...: wrapping, defined): a
        signed overflow is undefined, and the optimiser may then compute an index in 32 bits
        in one build and 64 in the other, so that another work-item fails first (seed
        500702257: `64 * (int)u`). Large indices stay, as wrapped or 64-bit values."""
        r = self.r
        if depth > 2 or self.chance(0.35):
            return self.atom()
        roll = r.random()
        a = self.expr(depth + 1)
        ia = self.info
        b = self.expr(depth + 1)
        ib = self.info
        if roll < 0.3:
            return self.arith(a, "+", b, ia, ib)
        if roll < 0.45:
            return self.arith(a, "-", b, ia, ib)
        if roll < 0.55:
            k = r.choice([2, 3, 4, 16])
            return self.arith(a, "*", str(k), ia, ("int", k, k))
        if roll < 0.62:
            return self.arith(a, "*", b, ia, ib) if depth else self.arith(a, "+", b, ia, ib)
        t = _common(ia[0], "int")
        if roll < 0.7:
            k = r.choice([1, 2, 3, 16])
            lo, hi = _converted(ia, t)[1:]
            self.info = (t, _truncated(lo, k), _truncated(hi, k))
            return f"({a} / {k})"
        if roll < 0.76:
            k = r.choice([2, 5, 16])
            lo, hi = _converted(ia, t)[1:]
            self.info = (t, 0 if lo >= 0 else 1 - k, k - 1)
            return f"({a} % {k})"
        if roll < 0.82:
            k = r.choice([3, 15, 255])
            self.info = (t, 0, k)
            return f"({a} & {k})"
        if roll < 0.87:
            k = r.randint(0, 4)
            self.info = (_promoted(ia[0]), ia[1] >> k, ia[2] >> k)
            return f"({a} >> {k})"
        if roll < 0.91:
            cast = r.choice(_TYPES)
            self.info = _converted(ia, cast)
            return f"(({cast})({a}))"
        if roll < 0.93:             # operators inside macro expansions
            which = r.randrange(3)
            if which == 2:
                self.info = ("ulong", 0, 510)
                return "GID2"
            if which == 0:
                text = self.arith(a, "*", "2", ia, ("int", 2, 2))
                return f"TWICE({a})" if text == f"({a} * 2)" else text
            text = self.arith(a, "+", b, ia, ib)
            return f"SUM({a}, {b})" if text == f"({a} + {b})" else text
        if roll < 0.97:             # clamps (built-ins; clamp's lo <= hi always)
            ca, cb = _converted(ia, "int"), _converted(ib, "int")
            shapes = [(f"min(max((int)({a}), 0), n - 1)", ("int", -1, 199)),
                      (f"min((int)({a}), (int)({b}))",
                       ("int", min(ca[1], cb[1]), min(ca[2], cb[2]))),
                      (f"max((int)({a}), (int)({b}))",
                       ("int", max(ca[1], cb[1]), max(ca[2], cb[2]))),
                      (f"clamp((int)({a}), 0, 15)", ("int", 0, 15)),
                      (f"clamp((int)({a}), -2, n > 0 ? n : -2)", ("int", -2, 200)),
                      (f"(({a}) < 0 ? 0 : ({a}) > 15 ? 15 : ({a}))", (t, 0, 15))]
            text, self.info = shapes[r.randrange(len(shapes))]
            return text
        c = self.cond()
        self.info = _union(ia, ib, _common(ia[0], ib[0]))
        return f"({c} ? {a} : {b})"

    def arith(self, a, op, b, ia, ib):
        """`a op b`, or its wrapping form where a signed result may overflow; sets self.info."""
        t = _common(ia[0], ib[0])
        (_, alo, ahi), (_, blo, bhi) = _converted(ia, t), _converted(ib, t)
        if op == "+":
            lo, hi = alo + blo, ahi + bhi
        elif op == "-":
            lo, hi = alo - bhi, ahi - blo
        else:
            products = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
            lo, hi = min(products), max(products)
        tlo, thi = _RANGE[t]
        if tlo <= lo and hi <= thi:
            self.info = (t, lo, hi)
            return f"({a} {op} {b})"
        self.info = (t, tlo, thi)   # unsigned: wraps (defined); signed: written to wrap
        return f"{_WRAP[t, op]}({a}, {b})" if (t, op) in _WRAP else f"({a} {op} {b})"

    def cond(self):
        saved, self.safe = self.safe, True
        try:
            r = self.r
            op = r.choice(["<", "<", "<=", ">", ">=", "!="])
            small = self.small_vars()
            left = r.choice(small)[0] if small and self.chance(0.7) else self.expr(2)
            c = f"{left} {op} {self.expr(2)}"
            if self.chance(0.1):
                c = f"IN_RANGE({left}, {self.expr(2)}, {self.expr(2)})"
            if self.chance(0.2):
                c = f"{c} && {self.cond()}"
            return c
        finally:
            self.safe = saved

    def access(self):
        r = self.r
        roll = r.random()
        e = self.expr()
        info = self.info
        # (what work-items store where others may read or store is the same for all of
        # them: PoCL may run the work-items of a group in any order)
        if roll < 0.35:
            self.emit(f"acc += a[{e}];")
        elif roll < 0.6:
            self.emit(f"out[{e}] = {r.randint(0, 9)};")
        elif roll < 0.75:
            self.emit(f"tile[{e}] = 1;")
            self.emit(f"acc += tile[{self.expr()}] & 0;")
        elif self.chance(0.7):
            self.emit(f"acc += priv[{e}];")
        else:                       # the same through a pointer into it (an "offset" check)
            minus = self.arith(f"({e})", "-", "1", info, ("int", 1, 1))
            self.emit(r.choice([f"acc += *(priv + ({e}));", f"acc += (priv + 1)[{minus}];"]))

    def define(self):
        r = self.r
        name = f"v{len(self.lines)}"
        t = r.choice(_TYPES)
        self.tainted = False
        self.emit(f"{t} {name} = {self.expr()};")
        info = self.info
        if self.chance(0.25):
            self.emit(f"{name} = {self.expr()};")     # reassigned
            info = _union(info, self.info, t)
        if self.tainted:
            self.big.add(name)
        self.declare(name, t, info)
        if self.chance(0.2) and name not in self.big:   # clamped: reads itself on the right
            bound = self.expr(1)
            self.emit(f"{name} = ({name} {r.choice(['>', '<', '>='])} {bound}) ? {bound} "
                      f": {name};")
            self.hold(name, t, _union(info, self.info, t))
        if self.chance(0.15) and len(self.small_vars()) >= 2:   # a flat index, guarded
            (y, _), (x, _) = r.sample(self.small_vars(), 2)
            flat = f"f{len(self.lines)}"
            self.emit(f"long {flat} = {y} * {r.choice(['n', '16', 'get_local_size(0)'])} "
                      f"+ {x};")
            self.emit(f"if ({y} {r.choice(['<', '<='])} {self.expr(2)} && {x} >= 0) "
                      f"{r.choice(['acc += a', 'out'])}[{flat}]{' = 2' if self.chance(0.5) else ''};"
                      .replace("acc += a[" + flat + "] = 2", "acc += a[" + flat + "]")
                      .replace("out[" + flat + "];", "out[" + flat + "] = 3;"))
        if self.chance(0.1):
            self.emit(f"if (acc > {r.randint(0, 50)}) {self.bump(name, t)}")

    def block(self, budget):
        r = self.r
        saved = list(self.vars)
        for _ in range(budget):
            roll = r.random()
            if roll < 0.25:
                self.define()
            elif roll < 0.55:
                self.access()
            elif roll < 0.68 and self.depth < 3:
                self.emit(f"if ({self.cond()}) {{")
                self.depth += 1
                self.block(r.randint(1, 3))
                self.depth -= 1
                self.emit("}" if self.chance(0.7) else "} else { acc += 1; }")
            elif roll < 0.75 and self.vars:
                self.emit(f"if ({self.cond()}) return;")
            elif roll < 0.9 and self.depth < 3:
                self.loop()
            elif roll < 0.93 and len(self.small_vars()) >= 2:
                self.difference()
            elif roll < 0.99:
                self.flag()
            else:
                self.access()
        self.vars = saved

    def difference(self):
        """`if (x >= y) ... [x - y]`: a difference a guard makes non-negative, and shapes
        that look like it but are not (the wrong direction, `||`, a write under the guard,
        a difference of other operands)."""
        r = self.r
        (x, _), (y, _) = r.sample(self.small_vars(), 2)
        op = r.choice([">=", ">=", ">", "<=", "!="])
        guard = f"{x} {op} {y}"
        if self.chance(0.15):
            guard = f"{guard} || n > 2"
        elif self.chance(0.15):
            guard = f"!({guard})"
        elif self.chance(0.2):
            guard = f"{guard} && {self.cond()}"
        index = r.choice([f"{x} - {y}", f"{x} - {y}", f"{x} - {y} - 1", f"{x} - {y} + 1",
                          f"{y} - {x}"])
        write = f"{y} += 1; " if self.chance(0.15) else ""
        target = r.choice([f"acc += tile[{index}] & 0;", f"out[{index}] = 4;",
                           f"acc += a[{index}];", f"acc += priv[{index}];"])
        self.emit(f"if ({guard}) {{ {write}{target} }}")

    def flag(self):
        """Hotspot's shape (launch_implied.py): a flag set under comparisons with locals
        defined by conditionals, then an access under the flag whose index those make safe --
        and near misses (a bound off by one, a flag also set elsewhere or from a value, a
        variable changed after the flag was set, a flag left unset when a loop runs zero
        times)."""
        r = self.r
        n = len(self.lines)
        small = self.small_vars()
        (x, _), (y, _) = r.sample(small, 2) if len(small) >= 2 else (("", ""), ("", ""))
        if not x or self.chance(0.7):           # locals that never change (the usual case)
            x, y = f"xs{n}", f"ys{n}"
            self.emit(f"int {x} = {r.choice(['get_local_id(0)', 'get_global_id(0) % 16', 'get_local_id(0) - 2', '(int)get_local_id(0) * 2'])};")
            self.emit(f"int {y} = {r.choice(['(int)get_group_id(0) * 6 - 3', '-(int)(u & 7)', '(int)get_local_size(0) - 20', 'n - 8', '(int)get_group_id(0) * 14 - 1'])};")
        lo, hi, f = f"lo{n}", f"hi{n}", f"fl{n}"
        self.emit(f"int {lo} = ({y} < 0) ? -({y}) : 0;")
        top = r.choice(["15", "n - 1", "(int)get_local_size(0)"])
        self.emit(f"int {hi} = ({y} + 15 > {top}) ? 15 - ({y} + 15 - {top}) : 15;")
        cmp_lo = r.choice([">=", ">=", ">"]) if self.chance(0.8) else "<="
        cmp_hi = r.choice(["<=", "<=", "<"]) if self.chance(0.8) else ">="
        cond = f"{x} {cmp_lo} {lo} && {x} {cmp_hi} {hi}"
        if self.chance(0.3):
            cond = f"IN_RANGE({x}, {lo}, {hi})"
        shape = r.random()
        if shape < 0.4:
            self.emit(f"int {f} = 0;")
            self.emit(f"if ({cond}) {{ {f} = 1; }}")
        else:                                   # written first in a loop
            # A flag without an initializer only before a loop that always runs: one that may
            # run zero times leaves it indeterminate, and reading it is undefined -- the two
            # builds compared then read different garbage (seed 160054: a failure in one
            # only). The zero-iteration side condition is tested by
            # tests/frontend/test_launch_implied_c.py::test_no_iteration_leaves_the_flag_unwritten.
            bound = r.choice(["1", "2", "n", "(int)(u & 3)"])
            self.emit(f"int {f};" if bound in ("1", "2") else f"int {f} = 0;")
            self.emit(f"for (int it{n} = 0; it{n} < {bound}; it{n}++) {{")
            self.emit(f"    {f} = 0;")
            self.emit(f"    if ({cond}) {f} = 1;")
            self.emit("}")
        miss = r.random()
        if miss < 0.08:
            self.emit(f"if (acc > 3) {f} = 1;")
        elif miss < 0.14:
            self.emit(f"{f} = {x} < 3;")
        elif miss < 0.2:
            self.emit(f"{lo} = {lo} - 2;")
        index = r.choice([f"{y} + {x}", f"{y} + {x}", f"{x} + {y} - 1", f"{y} + {x} + 1"])
        target = r.choice([f"out[{index}] = 6;", f"acc += a[{index}];",
                           f"acc += tile[{index}] & 0;", f"acc += priv[{index}];"])
        self.emit(f"if ({f}) {{ {target} }}")

    def loop(self):
        r = self.r
        self.loops += 1
        k = f"k{self.loops}"
        t = r.choice(["int", "int", "uint", "long", "uchar", "short"])
        shape = r.random()
        if shape < 0.2:         # doubling (from small starts: no overflow in 12 turns)
            # (small starts: 200 << 24 would overflow an int within 12 turns)
            start = r.choice(["0", "1", "1", "2", "get_local_id(0) + 1", "(n & 31)"])
            bound = r.choice(["n", "16", "get_local_size(0)", "200", "300", "u"])
            step = r.choice([f"{k} *= 2", f"{k} <<= 1", f"{k} *= 3", f"{k} <<= 2"])
            op = r.choice(["<", "<", "<="])
        elif shape < 0.35:      # halving
            start = r.choice(["n", "get_local_size(0)", "get_local_size(0) / 2", "(int)u",
                              "get_global_id(0)", "(n - 100)", "300"])
            bound = r.choice(["0", "0", "-1", "1", "(n - 150)", "0u"])
            step = r.choice([f"{k} /= 2", f"{k} >>= 1", f"{k} /= 3"])
            op = r.choice([">", ">", ">="])
        else:
            start = r.choice(["0", "1", "get_local_id(0)", "get_global_id(0)", "n",
                              "(int)(u >> 2)"])
            bound = r.choice(["n", "16", "get_local_size(0)", "get_global_size(0)", "(n + 3)",
                              "u", "200", "300"])
            step = r.choice([f"{k}++", f"++{k}", f"{k} += 2", f"{k} += get_local_size(0)",
                             f"{k} += get_global_size(0)", f"{k} += 100"])
            op = r.choice(["<", "<", "<="])
        # what k takes in at most 12 turns (the guard): from its start, doubled or added to
        first = {"(int)u": _RANGE["int"], "(n - 100)": (-100, 100),
                 "(int)(u >> 2)": (0, 2 ** 30)}.get(start, (0, 300))
        info = ("long", first[0], 2 ** 30 if shape < 0.2 else first[1] + 4096)
        self.emit(f"for ({t} {k} = {start}; {k} {op} {bound}; {step}) {{")
        self.depth += 1
        self.emit("if (++guard > 12) break;")
        saved = list(self.vars)
        self.declare(k, t, info)
        if start == "(int)u":       # (halving from -2**31: its k - 1 would overflow)
            self.big.add(k)
        if self.chance(0.1):
            self.emit(f"if (acc > 7) {self.bump(k, t)}")
        self.block(r.randint(1, 3))
        self.vars = saved
        self.depth -= 1
        self.emit("}")

    def kernel(self, seed) -> LaunchKernel:
        r = self.r
        name = f"lk{seed}"
        head = ["#define TWICE(x) ((x) * 2)", "#define SUM(x, y) ((x) + (y))",
                *(f"#define {m}(x, y) (({t})((u{t})(x) {op} (u{t})(y)))"
                  for (t, op), m in _WRAP.items()),
                "#define GID2 (get_global_id(0) * 2)",
                "#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))",
                f"__kernel void {name}(__global int *out, __global const int *a, int n, "
                "uint u, ulong w, __global int *res) {",
                "    __local int tile[16];",
                "    int priv[8];",
                "    int acc = 0, guard = 0;",
                "    for (int t = 0; t < 8; t++) priv[t] = t;"]
        self.block(r.randint(2, 6))
        self.lines.append("    res[get_global_id(0)] = acc;")
        self.lines.append("}")
        source = "\n".join(head + self.lines) + "\n"
        return LaunchKernel(seed, source, name, [self.launch() for _ in range(r.randint(2, 4))])

    def launch(self) -> Launch:
        r = self.r
        group = r.choice([1, 2, 4, 8, 16, 16, 32])
        groups = r.choice([1, 1, 2, 3, 4])
        items = group * groups
        big = self.chance(0.6)          # buffers that fit most indices: predicates hold
        out = r.choice([items, items + 16, 512, 1024]) if big else r.randint(0, items + 2)
        a = r.choice([items, 256, 1024]) if big else r.randint(0, 40)
        n = r.choice([0, 1, 3, items - 1, items, items + 1, 16, 100, 200])
        u = r.choice([0, 1, 5, items, 100, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32 - 20])
        w = r.choice([0, 2, items, 2 ** 40, 2 ** 64 - 1, 2 ** 63])
        return Launch(items, group if self.chance(0.85) else 0, max(out, 0), max(a, 0), n, u, w)


def generate(seed: int) -> LaunchKernel:
    return _Gen(seed).kernel(seed)


@contextlib.contextmanager
def _launch_predicates(on: bool):
    from tests.support.differential import eliminating
    from tests.support.settings import reload_settings

    saved = os.environ.get("SAFEKERN_LAUNCH_PREDICATES")
    os.environ["SAFEKERN_LAUNCH_PREDICATES"] = "1" if on else "0"
    try:
        with eliminating(True):
            yield
    finally:
        if saved is None:
            os.environ.pop("SAFEKERN_LAUNCH_PREDICATES", None)
        else:
            os.environ["SAFEKERN_LAUNCH_PREDICATES"] = saved
        reload_settings()


def run(env, k: LaunchKernel, on: bool, one_group: bool = False, options=()):
    """[(failure or None, out)] of every launch of `k` with launch predicates `on`."""
    import pyopencl as cl

    import safekern
    import safekern.opencl as skcl

    results = []
    with _launch_predicates(on):
        prg = skcl.Program(env.ctx, k.source, filename=f"lfuzz_{k.seed}.cl").build(
            options=list(options))
        knl = getattr(prg, k.name)
        for x in k.launches:
            items, group = x.items, x.group
            if one_group:
                # (one group of at most 64: a larger launch left its group size to the driver,
                # and PoCL split its 64 items into groups whose threads race to fail first --
                # seed 7 failed in one of two builds at 'priv' in group 1, in the other at
                # 'out' in group 0, on a loaded machine)
                items = group = min(items, 64)
            mf = cl.mem_flags
            out = np.full(max(x.out, 1), -1, np.int32)
            data = (np.arange(max(x.a, 1), dtype=np.int32) * 7) % 13
            res = np.full(items, -1, np.int32)
            bufs = [cl.Buffer(env.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out),
                    cl.Buffer(env.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data),
                    cl.Buffer(env.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=res)]
            # (OpenCL has no buffers of 0 bytes: the smallest has 1 element)
            args = (bufs[0], bufs[1], np.int32(x.n), np.uint32(x.u), np.uint64(x.w), bufs[2])
            knl(env.queue, (items,), (group,) if group else None, *args)
            if on:
                STATS[_which(knl, args, items, group)] += 1
            failure = None
            try:
                safekern.sync()
            except safekern.KernelError as err:
                failure = (type(err).__name__, getattr(err, "lineno", None),
                           getattr(err, "array", None), getattr(err, "index", None),
                           getattr(err, "thread", None), getattr(err, "block", None))
            host, host_res = np.zeros_like(out), np.zeros_like(res)
            cl.enqueue_copy(env.queue, host, bufs[0])
            cl.enqueue_copy(env.queue, host_res, bufs[2])
            env.queue.finish()
            results.append((failure, np.concatenate([host, host_res])))
    return results


#: launches with predicates on, by what ran: "full" / "partial" variant, "checked" (none
#: held, or no partial variant left), "none" (the kernel has no launch predicates)
STATS = {"full": 0, "partial": 0, "checked": 0, "none": 0}


def _which(knl, args, items, group) -> str:
    from safekern.backends.c_launch import opencl_geometry

    variants = knl._launch_variants()
    if not variants:
        return "none"
    sizes = [knl._size_value(args[i], i) for i in sorted(knl._pointer_slots)]
    chosen = variants.for_launch(list(args), sizes, opencl_geometry, (items,),
                                 (group,) if group else None, None, False)
    if chosen is None:
        return "checked"
    return "full" if variants.mask(list(args), sizes, (items, 1, 1),
                                   (group, 1, 1) if group else None) == variants.full \
        else "partial"


def _same_failure(a, b) -> bool:
    """The same failure; an index that differs by a multiple of 2**32 is the same too: the
    generator's int arithmetic may overflow (`(int)u * 2` with u = 2**31 - 1), which C leaves
    undefined and the two builds may compute in 32 or 64 bits -- the same check failed."""
    if a is None or b is None or a == b:
        return a == b
    return a[:3] + a[4:] == b[:3] + b[4:] and isinstance(a[3], int) and \
        isinstance(b[3], int) and (a[3] - b[3]) % 2 ** 32 == 0


def differences(env, k: LaunchKernel, one_group: bool = False, options=()) -> list[str]:
    on, off = run(env, k, True, one_group, options), run(env, k, False, one_group, options)
    out = []
    for i, ((f_on, o_on), (f_off, o_off)) in enumerate(zip(on, off)):
        if not _same_failure(f_on, f_off):
            out.append(f"launch {i} {vars(k.launches[i])}: failure with predicates {f_on}, "
                       f"checked {f_off}")
        elif not np.array_equal(o_on, o_off):
            out.append(f"launch {i} {vars(k.launches[i])}: outputs differ")
    return out


__all__ = ["generate", "run", "differences", "LaunchKernel", "Launch"]
