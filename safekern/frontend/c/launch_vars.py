"""Values of a C kernel's integer variables at a use, for launch predicates (launch.py).

`VariableValues` is the part of `launch.LaunchAnalysis` that answers "what can variable v hold
here": the definition that reaches the use on every path (walking back through the preceding
statements of each enclosing block), narrowed by the guards on the way, or the range of a
`for` loop's variable; a scalar parameter never assigned is its launch fact. What counts as a
write, and why each step is sound, is in launch.py's module doc.
"""
from __future__ import annotations

import ctypes

from .launch_expr import LaunchFact
from .parse import _cindex, binary_op, children, kids, span, unary_op, walk
from .parse import strip
from .ranges import integer_limits

# CXBinaryOperatorKind and CXUnaryOperatorKind (clang-c/Index.h, libclang 17 and later)
_BINARY = {3: "*", 4: "/", 5: "%", 6: "+", 7: "-", 8: "<<", 9: ">>", 11: "<", 12: ">", 13: "<=",
           14: ">=", 15: "==", 16: "!=", 17: "&", 18: "^", 19: "|", 20: "&&", 21: "||", 22: "=",
           23: "*=", 24: "/=", 25: "%=", 26: "+=", 27: "-=", 28: "<<=", 29: ">>=", 30: "&=",
           31: "^=", 32: "|=", 33: ","}
_UNARY = {1: "post++", 2: "post--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~",
          10: "!"}
_OPS = None


def _operator_kinds() -> tuple:
    """(binary kind of a cursor, unary kind of a cursor), or () where libclang lacks them."""
    global _OPS
    if _OPS is None:
        try:
            ci = _cindex()
            lib = ci.conf.lib
            binary, unary = (lib.clang_getCursorBinaryOperatorKind,
                             lib.clang_getCursorUnaryOperatorKind)
            for fn in (binary, unary):
                fn.argtypes = [ci.Cursor]
                fn.restype = ctypes.c_int
            _OPS = (binary, unary)
        except AttributeError:
            _OPS = ()
    return _OPS


_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class Iv:
    """Bounds (a value, or None: unknown) of an integer in a type of range `lim`, valid where
    every condition (temp name) of `conds` holds."""

    __slots__ = ("lo", "hi", "conds", "lim")

    def __init__(self, lo, hi, conds=frozenset(), lim=None):
        self.lo, self.hi, self.conds, self.lim = lo, hi, frozenset(conds), lim

    @property
    def known(self) -> bool:
        return self.lo is not None and self.hi is not None


_UNKNOWN = Iv(None, None)


def _key(c):
    return (c.hash, *span(c))


def _same(a, b) -> bool:
    """The same cursor (the hash first: reading extents costs libclang calls)."""
    return a.hash == b.hash and _key(a) == _key(b)


class VariableValues:
    """Mixin of launch.LaunchAnalysis: needs ps, fn, K, b, body, params, parents,
    value(), and the memo dicts _vars and _writes_memo."""

    # -- variables --------------------------------------------------------------------------
    def var(self, decl, at) -> Iv:
        key = (decl.hash, _key(at))
        hit = self._vars.get(key)
        if hit is None:
            self._vars[key] = _UNKNOWN             # (a cycle gives nothing)
            hit = self._vars[key] = self._var(decl, at)
            if decl.kind == self.K.VAR_DECL:
                guards, conds = self.implied_at(at)  # (launch_implied.py: a flag's guards)
                if guards:
                    hit = self._vars[key] = self._with_implied(decl, guards, conds, hit)
        return hit

    def _with_implied(self, decl, guards, conds, hit) -> Iv:
        """`hit` and the bounds a flag's guards give `decl`, each bound the tightest of those
        whose conditions hold at the launch."""
        lim = integer_limits(decl.type)
        rel = self.implied_bound(decl, guards, lim)
        if not rel.known:
            return hit
        rc = tuple(rel.conds | conds)
        out = set()
        lo = _tightest(self.b, "max", ([(hit.conds, hit.lo)] if hit.lo is not None else []) +
                       [(rc, rel.lo)], out)
        hi = _tightest(self.b, "min", ([(hit.conds, hit.hi)] if hit.hi is not None else []) +
                       [(rc, rel.hi)], out)
        return Iv(lo, hi, out, lim)

    def _var(self, decl, at) -> Iv:
        K = self.K
        lim = integer_limits(decl.type)
        if lim is None:
            return _UNKNOWN
        if decl.kind == K.PARM_DECL:
            return self._scalar(decl, lim)
        if decl.kind != K.VAR_DECL or not self._plain_local(decl):
            return _UNKNOWN
        chain = self.parents.get(_key(at))
        if chain is None:
            return _UNKNOWN
        chain = chain + (at,)
        guards = _Guards()
        j = len(chain) - 1
        while j > 0 and not self._statement_parent(chain[j - 1]):
            j -= 1
        if self._writes(chain[j], decl) and not self._read_before_assigned(chain, j, decl):
            return _UNKNOWN
        for i in range(j, len(chain) - 1):
            self._inner_guard(chain[i], chain[i + 1], decl, guards)
        for i in range(j - 1, -1, -1):
            p, c = chain[i], chain[i + 1]
            kind = p.kind
            if kind == K.COMPOUND_STMT:
                found = self._before(p, c, decl, guards, at)
                if found is not None:
                    return found
            elif kind == K.IF_STMT:
                ch = children(p)
                if len(ch) not in (2, 3) or self._writes(ch[0], decl):
                    return _UNKNOWN
                if not _same(c, ch[0]):
                    self._facts(ch[0], _same(c, ch[1]), decl, guards)
            elif kind == K.FOR_STMT:
                ch = children(p)
                if len(ch) == 4 and _same(c, ch[3]) and self._declares(ch[0], decl):
                    return self._induction(ch, decl, lim, guards)
                if self._writes(p, decl):
                    return _UNKNOWN
                if len(ch) == 4 and _same(c, ch[3]):
                    self._facts(ch[1], True, decl, guards)
            elif kind == K.WHILE_STMT:
                ch = children(p)
                if self._writes(p, decl) or len(ch) != 2:
                    return _UNKNOWN
                if _same(c, ch[1]):
                    self._facts(ch[0], True, decl, guards)
            elif kind == K.DO_STMT:
                if self._writes(p, decl):
                    return _UNKNOWN
            else:
                return _UNKNOWN
        return _UNKNOWN

    # An operator is libclang's (clang_getCursor{Binary,Unary}OperatorKind: right inside
    # macro expansions too). A libclang without them: the token after the left operand, which
    # inside a macro's expansion may be the invocation's (`#define TWICE (i * 2)`: `TWICE + 1`
    # reads `+` for the `*`) -- it counts only in the user's text between the operands.
    def _bop(self, node) -> str:
        ops = _operator_kinds()
        if ops:
            return _BINARY.get(ops[0](node), "")
        ch = children(node)
        if len(ch) != 2:
            return ""
        (_, le), (rs, _) = self.ps.offsets(ch[0]), self.ps.offsets(ch[1])
        tok = self.ps.next_token(le)
        if tok is None or tok[0] < le or tok[1] > rs or self.ps.macro_at(tok[0], tok[1] - 1):
            return ""
        return binary_op(self.ps, node)

    def _uop(self, node) -> str:
        ops = _operator_kinds()
        if ops:
            return _UNARY.get(ops[1](node), "")
        return unary_op(self.ps, node)

    def _definition_value(self, init, use) -> Iv:
        """The value of a definition's expression. Its variables that never change once
        defined (`int index = cols * y + x;` with `y`, `x` single definitions) hold the same
        value at the use: they are looked up there, where guards on them (`if (y < rows)`)
        narrow them too. Where that is known it is the answer: each variable's interval at
        the use lies within its interval at the definition, and mixing in the definition's
        bounds would bring their side conditions along (`0 <= y` of an unguarded product,
        which a halo breaks: hotspot's `grid_cols * yidx + xidx`)."""
        saved = self._lookup_at
        self._lookup_at = use
        try:
            at_use = self.value(init)
        finally:
            self._lookup_at = saved
        at_def = self.value(init)
        if not at_use.known or at_use is at_def:
            return at_def
        if not at_def.known:
            return at_use
        # Both hold where their own side conditions do, and neither is always the tighter
        # (a guard inside the definition, `i > 3 ? i - 3 : 0`, narrows only the latter):
        # each bound is the tightest of those whose conditions hold at the launch.
        b = self.b
        alts = [(tuple(sorted(iv.conds)), iv) for iv in (at_def, at_use)]
        return Iv(b.pick("max", [(c, iv.lo) for c, iv in alts]),
                  b.pick("min", [(c, iv.hi) for c, iv in alts]),
                  {c for c in [b.any_of([c for c, _ in alts])] if c is not True}, at_def.lim)

    def single_definition(self, decl) -> bool:
        """A local declared with a value and never written again."""
        if decl.kind != self.K.VAR_DECL or not self._plain_local(decl):
            return False
        ch = children(decl)
        return bool(ch) and ch[-1].kind.is_expression() and not self._writes(self.body, decl)

    def _read_before_assigned(self, chain, j, decl) -> bool:
        """The use is in the right-hand side of `decl = rhs;` (statement chain[j]), which
        writes nothing else: C computes the operands before it stores (`S = S > m ? m : S`),
        so the use sees the value from before the statement."""
        s = chain[j]
        if s.kind != self.K.BINARY_OPERATOR or self._bop(s) != "=":
            return False
        lhs, rhs = children(s)
        return (j + 1 < len(chain) and _key(chain[j + 1]) == _key(rhs) and
                self._is_decl(lhs, decl, exact=True) and not self._writes(rhs, decl))

    def _statement_parent(self, p) -> bool:
        K = self.K
        return p.kind in (K.COMPOUND_STMT, K.IF_STMT, K.FOR_STMT, K.WHILE_STMT, K.DO_STMT,
                          K.FUNCTION_DECL, K.FUNCTION_TEMPLATE)

    def _plain_local(self, decl) -> bool:
        """An automatic local of this kernel, not volatile, in no other address space."""
        if decl.semantic_parent is None or decl.semantic_parent != self.fn:
            return False
        if decl.storage_class.name not in ("NONE", "AUTO", "REGISTER"):
            return False
        if decl.type.is_volatile_qualified():
            return False
        if any(a.kind.name.startswith("CUDA") for a in kids(decl)):
            return False
        spelling = decl.type.spelling
        return not any(w in spelling for w in ("__local", "__global", "__constant", "local ",
                                               "global ", "constant "))

    def _scalar(self, decl, lim) -> Iv:
        index = next((i for i, p in enumerate(self.params) if p.hash == decl.hash), None)
        if index is None or self._writes(self.body, decl):
            return _UNKNOWN
        size = decl.type.get_canonical().get_size()
        f = self.b.fact(LaunchFact("scalar", param=index, size=size, lo=lim[0], hi=lim[1],
                                   text=decl.spelling))
        return Iv(f, f, lim=lim)

    def _before(self, block, child, decl, guards, use):
        """The value of `decl` at `child` from the statements before it in `block`: an Iv, or
        None to go on outward."""
        K = self.K
        sibs = children(block)
        at = next((i for i, s in enumerate(sibs) if _same(s, child)), None)
        if at is None:
            return _UNKNOWN
        for s in reversed(sibs[:at]):
            init = self._definition(s, decl)
            if init is not None:
                if init is False or self._writes_other(s, decl):
                    return _UNKNOWN
                return guards.apply(self, self._definition_value(init, use),
                                    integer_limits(decl.type))
            if self._writes(s, decl):
                return _UNKNOWN
            if s.kind == K.IF_STMT:
                ch = children(s)
                if len(ch) == 2 and self._leaves(ch[1]):
                    self._facts(ch[0], False, decl, guards)
        return None

    def _definition(self, s, decl):
        """The initializer / assigned expression if statement `s` defines `decl`; False for a
        declaration without one; None if it does not."""
        K = self.K
        if s.kind == K.DECL_STMT:
            for v in children(s):
                if v.kind == K.VAR_DECL and v.hash == decl.hash:
                    ch = children(v)
                    return ch[-1] if ch and ch[-1].kind.is_expression() else False
            return None
        if s.kind == K.BINARY_OPERATOR and self._bop(s) == "=":
            lhs, rhs = children(s)
            if self._is_decl(lhs, decl, exact=True):
                return rhs
        return None

    def _writes_other(self, s, decl) -> bool:
        """A defining statement that also writes `decl` elsewhere (`i = i++`)."""
        K = self.K
        if s.kind == K.DECL_STMT:
            return any(self._writes(v, decl) for v in children(s))
        return self._writes(children(s)[1], decl)

    def _leaves(self, stmt) -> bool:
        K = self.K
        exits = (K.RETURN_STMT, K.BREAK_STMT, K.CONTINUE_STMT)
        if stmt.kind in exits:
            return True
        if stmt.kind == K.COMPOUND_STMT:
            ch = children(stmt)
            return bool(ch) and ch[-1].kind in exits
        return False

    def _declares(self, init, decl) -> bool:
        if init.kind != self.K.DECL_STMT:
            return False
        vs = children(init)
        return len(vs) == 1 and vs[0].hash == decl.hash

    # -- guards --------------------------------------------------------------------------------
    def _inner_guard(self, p, c, decl, guards):
        """Facts from the part of an expression evaluated before `c`: `x && c`, `x ? c : _`."""
        K = self.K
        ch = children(p)
        if p.kind == K.BINARY_OPERATOR and len(ch) == 2 and _same(c, ch[1]):
            op = self._bop(p)
            if op in ("&&", "||"):
                self._facts(ch[0], op == "&&", decl, guards)
        elif p.kind == K.CONDITIONAL_OPERATOR and len(ch) == 3:
            if _same(c, ch[1]):
                self._facts(ch[0], True, decl, guards)
            elif _same(c, ch[2]):
                self._facts(ch[0], False, decl, guards)

    def _facts(self, cond, truth: bool, decl, guards):
        """Bounds on `decl` that `cond` having value `truth` implies."""
        K = self.K
        c = strip(cond)
        if c.kind == K.UNARY_OPERATOR and self._uop(c) == "!":
            return self._facts(children(c)[0], not truth, decl, guards)
        if c.kind != K.BINARY_OPERATOR:
            return
        op = self._bop(c)
        left, right = children(c)
        if op in ("&&", "||"):
            if (op == "&&") == truth:
                self._facts(left, truth, decl, guards)
                self._facts(right, truth, decl, guards)
            return
        if op not in _NEGATE:
            return
        if not truth:
            op = _NEGATE[op]
        if self._is_decl(left, decl):
            bound = right
        elif self._is_decl(right, decl):
            bound, op = left, _FLIP[op]
        else:
            return
        v = self.value(bound)
        b = self.b
        if op in ("<", "<=", "==") and v.hi is not None:
            guards.caps.append((v.conds, b.sub(v.hi, 1) if op == "<" else v.hi))
        if op in (">", ">=", "==") and v.lo is not None:
            guards.floors.append((v.conds, b.add(v.lo, 1) if op == ">" else v.lo))

    def _is_decl(self, e, decl, exact: bool = False) -> bool:
        """`e` is `decl` itself, through parentheses and conversions that keep every value
        of its type (`exact`: no conversion at all)."""
        K = self.K
        lim = integer_limits(decl.type)
        while True:
            if e.kind == K.PAREN_EXPR:
                e = children(e)[0]
                continue
            if e.kind == K.UNEXPOSED_EXPR and len(children(e)) == 1:
                if not exact:
                    to = integer_limits(e.type)
                    if to is None or lim is None or to[0] > lim[0] or to[1] < lim[1]:
                        return False
                e = children(e)[0]
                continue
            break
        return e.kind == K.DECL_REF_EXPR and e.referenced is not None and \
            e.referenced.hash == decl.hash

    def _writes(self, node, decl) -> bool:
        """Anything in `node` that may change `decl`: every use but reading its value."""
        key = (_key(node), decl.hash)
        hit = self._writes_memo.get(key)
        if hit is None:
            s, e = self.ps.offsets(node)
            hit = self._writes_memo[key] = any(
                s <= at < e for at in self._write_sites().get(decl.hash, ()))
        return hit

    def _write_sites(self) -> dict:
        """decl hash -> where the kernel's body may change it (the start of each reference
        that is not a read), found in one walk: every `_writes` question is then which of
        them lie inside a node."""
        sites = self.__dict__.get("_sites")
        if sites is None:
            sites = self.__dict__["_sites"] = {}
            K = self.K
            for c, parents in walk(self.body, (self.fn,)):
                if c.kind != K.DECL_REF_EXPR or c.referenced is None:
                    continue
                # A read is an lvalue-to-rvalue conversion (libclang: unexposed) above the
                # reference, through parentheses and, in C++, the branches of a conditional
                # whose result is an lvalue (`S = S > m ? m : S;` converts the whole `?:`);
                # assigning to or binding that lvalue is a write.
                k = len(parents) - 1
                while k >= 0 and parents[k].kind in (K.PAREN_EXPR, K.CONDITIONAL_OPERATOR):
                    k -= 1
                if k < 0 or parents[k].kind != K.UNEXPOSED_EXPR:
                    sites.setdefault(c.referenced.hash, []).append(self.ps.offsets(c)[0])
        return sites



class _Guards:
    """Bounds the guards between a definition and a use put on the variable: (the side
    conditions it rests on, value) each."""

    def __init__(self):
        self.floors, self.caps = [], []

    def apply(self, an, iv: Iv, lim) -> Iv:
        if iv.lo is None and iv.hi is None and iv.lim is None and not (self.floors or
                                                                       self.caps):
            return _UNKNOWN
        conds = set()
        lo = _tightest(an.b, "max", ([(iv.conds, iv.lo)] if iv.lo is not None else []) +
                       self.floors, conds)
        hi = _tightest(an.b, "min", ([(iv.conds, iv.hi)] if iv.hi is not None else []) +
                       self.caps, conds)
        return Iv(lo, hi, conds, lim)


def _tightest(b, which, alternatives, conds):
    """The tightest (`which`: "max" for a lower bound) of bounds (conditions, value) of one
    value, each valid where its own conditions hold; adds to `conds` what the result needs.
    Bounds resting on the same conditions combine directly; otherwise the bound is the
    tightest of those whose conditions hold at the launch -- a guard whose bound breaks at a
    launch does not take the others with it."""
    groups: dict = {}
    for c, v in alternatives:
        if isinstance(v, (int, str)):
            groups.setdefault(tuple(sorted(c)), []).append(v)
    if not groups:
        return None
    alts = [(c, b.max(*vs) if which == "max" else b.min(*vs)) for c, vs in groups.items()]
    sure = next((v for c, v in alts if not c and isinstance(v, int)), None)
    if sure is not None:            # a constant bound that always holds: a conditional
        alts = [(c, v) for c, v in alts if not c or not isinstance(v, int) or (   # one that
            v > sure if which == "max" else v < sure)]                          # is no tighter
    if len(alts) == 1:                                                          # adds nothing
        conds.update(alts[0][0])
        return alts[0][1]
    any_ = b.any_of([c for c, _ in alts])
    if any_ is not True:
        conds.add(any_)
    return b.pick(which, alts)


__all__ = ["Iv", "VariableValues"]
