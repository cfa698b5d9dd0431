"""The launch predicates of a C kernel as data: launch facts, shared temporaries, conditions.

launch.py derives, for a check the static rules keep, bounds of its index as expressions over
*launch facts* -- values fixed for the whole launch that the host knows: an integer scalar
parameter the kernel never assigns, the element count of a pointer parameter (its hidden
size), blockDim/gridDim (CUDA), the global and local sizes (OpenCL). A `KernelPredicates`
holds what one kernel's predicates need, as straight-line Python over those facts:

    facts    LaunchFact each, read from the launch (args, hidden sizes, geometry)
    temps    (name, expression, text): shared sub-expressions, each computed once a launch
    preds    LaunchPredicate each: the failure code it proves and the temps (booleans) that
             must all be true

The backend (backends/c_launch.py) compiles them into one `mask()` call per launch. Every
value is a Python int; an expression that cannot be evaluated (a fact the launch does not
give: a local size left to the driver) makes its temp None, and a predicate over it does not
hold. Nothing here reads libclang.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: What check_report() says of a check a launch predicate proves.
PROVEN_REASON = ("checked only in launches that break its launch predicate (the variant "
                 "launched where it holds has no check)")


@dataclass(frozen=True)
class LaunchFact:
    """One value the host knows at a launch.

    kind "scalar": the integer the kernel reads for parameter `param` (C type of `size`
    bytes, range [lo, hi]); "field": the integer member at byte `slot` of the by-value struct
    parameter `param` (`whole` bytes; CUDA C: struct_fields.scalar_of); "extent": elements of
    the pointer at hidden size `slot` (the pointer parameters', then the struct pointer
    fields'; `size`: its element size); "block"/"grid": blockDim/gridDim (CUDA); "global",
    "local", "groups": get_global_size, get_local_size, get_num_groups (OpenCL)."""

    kind: str
    param: int = -1
    slot: int = -1
    axis: int = 0
    size: int = 0
    lo: int = 0
    hi: int = 0
    text: str = ""
    whole: int = 0

    @property
    def name(self) -> str:
        if self.kind == "scalar":
            return f"s{self.param}"
        if self.kind == "field":
            return f"f{self.param}_{self.slot}"
        if self.kind == "extent":
            return f"e{self.slot}_{self.size}"
        return f"{self.kind[0]}{self.kind[1]}{self.axis}"

    def python(self) -> str:
        """The value, from `args`, `nb` (hidden byte sizes, pointer order), `g` and `l`
        (3-tuples: CUDA grid and block; OpenCL global and local size, l may be None)."""
        if self.kind == "scalar":
            return f"_scalar(args[{self.param}], {self.size}, {self.lo}, {self.hi})"
        if self.kind == "field":
            return (f"_field(args[{self.param}], {self.slot}, {self.size}, {self.lo}, "
                    f"{self.hi}, {self.whole})")
        if self.kind == "extent":
            return f"_extent(nb[{self.slot}], {self.size})"
        if self.kind in ("block", "local"):
            return f"l[{self.axis}]"
        if self.kind in ("grid", "global"):
            return f"g[{self.axis}]"
        return f"-(-g[{self.axis}] // l[{self.axis}])"          # groups: ceil(global/local)


@dataclass(frozen=True)
class LaunchPredicate:
    """The check `code` may be left out where every temp of `conds` is true."""

    code: int
    conds: tuple
    text: str


@dataclass
class KernelPredicates:
    facts: tuple = ()
    temps: tuple = ()              # (name, python expression, text)
    preds: tuple = ()              # LaunchPredicate

    def __bool__(self):
        return bool(self.preds)

    def predicate(self, code: int):
        return next((p for p in self.preds if p.code == code), None)


@dataclass
class Builder:
    """Shared temporaries of one kernel's predicates (hash-consed: one per expression)."""

    facts: dict = field(default_factory=dict)      # name -> LaunchFact
    temps: list = field(default_factory=list)      # (name, expr, text)
    memo: dict = field(default_factory=dict)       # expr -> name
    texts: dict = field(default_factory=dict)      # name -> text

    # A value is an int (a constant) or the name of a fact or temp.
    def fact(self, f: LaunchFact) -> str:
        self.facts.setdefault(f.name, f)
        self.texts.setdefault(f.name, f.text)
        return f.name

    def text(self, v) -> str:
        return str(v) if isinstance(v, int) else self.texts[v]

    def temp(self, expr: str, text: str) -> str:
        name = self.memo.get(expr)
        if name is None:
            name = self.memo[expr] = f"t{len(self.temps)}"
            self.temps.append((name, expr, text))
            self.texts[name] = text
        return name

    # -- arithmetic, folded where both sides are constants --------------------------------------
    def add(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if b == 0:
            return a
        if a == 0:
            return b
        if isinstance(b, int) and b < 0:
            return self.temp(f"{a} - {-b}", f"{self.text(a)} - {-b}")
        return self.temp(f"{a} + {b}", f"{self.text(a)} + {self.text(b)}")

    def sub(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if b == 0:
            return a
        if isinstance(b, int):
            return self.add(a, -b)
        return self.temp(f"{a} - {b}", f"{self.text(a)} - {_paren(self.text(b))}")

    def neg(self, a):
        return -a if isinstance(a, int) else self.temp(f"-{a}", f"-{_paren(self.text(a))}")

    def mul(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1:
            return b
        if b == 1:
            return a
        if a == 0 or b == 0:
            return 0
        return self.temp(f"{a} * {b}", f"{_paren(self.text(a))} * {_paren(self.text(b))}")

    def floordiv(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        return self.temp(f"{a} // {b}", f"{_paren(self.text(a))} / {_paren(self.text(b))}")

    def tdiv(self, a, b):
        """C's division (truncation toward zero); b != 0."""
        if isinstance(a, int) and isinstance(b, int):
            q = abs(a) // abs(b)
            return q if (a < 0) == (b < 0) else -q
        return self.temp(f"_tdiv({a}, {b})", f"{_paren(self.text(a))} / {_paren(self.text(b))}")

    def min(self, *vs):
        return self._extreme("min", vs)

    def max(self, *vs):
        return self._extreme("max", vs)

    def _extreme(self, which, vs):
        vs = list(dict.fromkeys(vs))
        consts = [v for v in vs if isinstance(v, int)]
        rest = [v for v in vs if not isinstance(v, int)]
        if consts:
            rest.append(min(consts) if which == "min" else max(consts))
        if len(rest) == 1:
            return rest[0]
        return self.temp(f"{which}({', '.join(map(str, rest))})",
                         f"{which}({', '.join(self.text(v) for v in rest)})")

    def pick(self, which, alternatives):
        """The `which` ("max"/"min") of the values of `alternatives` -- (conditions, value)
        pairs -- whose conditions all hold at the launch (none holding: no value)."""
        alts = list(dict.fromkeys(alternatives))
        if len({v for _, v in alts}) == 1:
            return alts[0][1]
        pairs = ", ".join(f"({' and '.join(c) or 'True'}, {v})" for c, v in alts)
        return self.temp(f"{which}(v for ok, v in ({pairs},) if ok)",
                         f"{which}({', '.join(self.text(v) for _, v in alts)})")

    def any_of(self, condition_sets):
        """A condition: every condition of some set holds."""
        sets = [tuple(c) for c in dict.fromkeys(tuple(c) for c in condition_sets)]
        if any(not c for c in sets):
            return True
        expr = " or ".join(f"({' and '.join(c)})" for c in sets)
        return self.temp(expr, " or ".join(
            "(" + " and ".join(self.texts[n] for n in c) + ")" for c in sets))

    def le(self, a, b):
        """A condition: a <= b (True / False when both are constants)."""
        if isinstance(a, int) and isinstance(b, int):
            return a <= b
        return self.temp(f"{a} <= {b}", f"{self.text(a)} <= {self.text(b)}")

    def result(self, preds) -> KernelPredicates:
        """The predicates with only the temps they need, in order."""
        need = set()
        for p in preds:
            need.update(p.conds)
        deps = {name: expr for name, expr, _ in self.temps}
        stack = list(need)
        while stack:
            name = stack.pop()
            for word in _names(deps.get(name, "")):
                if word in deps and word not in need:
                    need.add(word)
                    stack.append(word)
        temps = tuple(t for t in self.temps if t[0] in need)
        used = set()
        for _, expr, _ in temps:
            used.update(_names(expr))
        facts = tuple(f for n, f in self.facts.items() if n in used)
        return KernelPredicates(facts, temps, tuple(preds))


def _paren(text: str) -> str:
    return f"({text})" if any(c in text for c in " +-") and not text.startswith(
        ("min(", "max(")) else text


def _names(expr: str) -> list:
    out, word = [], ""
    for ch in expr + " ":
        if ch.isalnum() or ch == "_":
            word += ch
        else:
            if word and not word[0].isdigit():
                out.append(word)
            word = ""
    return out


__all__ = ["PROVEN_REASON", "LaunchFact", "LaunchPredicate", "KernelPredicates", "Builder"]
