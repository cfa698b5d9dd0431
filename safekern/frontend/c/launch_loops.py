"""What a `for` loop's own variable holds in the loop's body, for launch predicates (launch.py).

`LoopValues` is the part of `launch.LaunchAnalysis` that answers "k is the variable of the
`for` around this use: what can it hold here". Three shapes, each only where the body and the
condition never write k (every use of k there is a read) and the variable is declared by the
loop (`for (T k = A; ...)`), so nothing before the loop reaches it:

    for (T k = A; k < B; k += S)   S >= 1:  k in [A.lo, B.hi - 1]; k never wraps:
                                   B.hi - 1 + S.hi fits T (`k++`: S = 1)
    for (T k = A; k < B; k *= C)   C >= 2 a constant (`k <<= c`: C = 2**c): k in
                                   [A.lo, B.hi - 1] where A.lo >= 1 (k only grows) and
                                   (B.hi - 1) * C fits T (the last step never wraps)
    for (T k = A; k > L; k /= C)   C >= 2 a constant (`k >>= c`): k in [L.lo + 1, A.hi]
                                   where L.lo >= 0: in the body k > L >= 0, and dividing a
                                   positive value by C >= 2 never makes it greater (`>=`: from
                                   L.lo)

`<=` for `<` (and `>=` for `>`) moves the bound by one; a comparison written the other way
round (`B > k`) is the same. A signed k compared as unsigned (`d < blockDim.x`) needs A.lo >= 0
too: then every value compared converts unchanged. Every bound that rests on launch facts is a side condition of the
predicate (launch.py's module doc); guards between the loop and the use narrow k further.
"""
from __future__ import annotations

from .launch_vars import _FLIP, _UNKNOWN, Iv
from .parse import children, evaluate_int, strip
from .ranges import integer_limits


class LoopValues:
    """Mixin of launch.LaunchAnalysis (needs VariableValues' _writes, _is_decl, _bop, _uop,
    value() and the builder b)."""

    def _induction(self, parts, decl, lim, guards) -> Iv:
        init, cond, inc, body = parts
        if self._writes(body, decl) or self._writes(cond, decl):
            return _UNKNOWN
        ch = children(children(init)[0])
        if not ch or not ch[-1].kind.is_expression():
            return _UNKNOWN
        start = self.value(ch[-1])
        step = self._step(inc, decl)
        c = strip(cond)
        if c.kind != self.K.BINARY_OPERATOR or step is None:
            return _UNKNOWN
        op = self._bop(c)
        left, right = children(c)
        unsigned = False            # k compared as an unsigned type (`d < blockDim.x`)
        if self._is_decl(left, decl):
            bound = right
        elif self._is_decl(right, decl):
            bound, op = left, _FLIP.get(op, "")
        elif self._is_decl_unsigned(left, decl):
            bound, unsigned = right, True
        elif self._is_decl_unsigned(right, decl):
            bound, op, unsigned = left, _FLIP.get(op, ""), True
        else:
            return _UNKNOWN
        end = self.value(bound)
        kind, s = step
        b = self.b
        if kind == "add" and op in ("<", "<=") and start.lo is not None and \
                end.hi is not None and s.known:
            hi = b.sub(end.hi, 1) if op == "<" else end.hi
            need = [(1, s.lo), (b.add(hi, s.hi), lim[1])]
            if s.lim is not None and s.lim[0] >= 0 and lim[0] < 0:
                need.append((0, start.lo))          # k converted to S's unsigned type
            iv = Iv(start.lo, hi, start.conds | end.conds | s.conds, lim)
        elif kind == "mul" and op in ("<", "<=") and start.lo is not None and \
                end.hi is not None:
            hi = b.sub(end.hi, 1) if op == "<" else end.hi
            need = [(1, start.lo), (b.mul(hi, s), lim[1])]
            iv = Iv(start.lo, hi, start.conds | end.conds, lim)
        elif kind == "div" and op in (">", ">=") and start.hi is not None and \
                end.lo is not None:
            need = [(0, end.lo)]
            iv = Iv(b.add(end.lo, 1) if op == ">" else end.lo, start.hi,
                    start.conds | end.conds, lim)
        else:
            return _UNKNOWN
        if unsigned:                # every value of k compared is one it keeps there
            need.append((0, start.lo))
        conds = set(iv.conds)
        for x, y in need:
            c = b.le(x, y)
            if c is False:
                return _UNKNOWN
            if c is not True:
                conds.add(c)
        return guards.apply(self, Iv(iv.lo, iv.hi, conds, lim), lim)

    def _is_decl_unsigned(self, e, decl) -> bool:
        """`e` is `decl` converted to an unsigned type that holds every value of `decl`
        that is not negative (`d` in `d < blockDim.x`, int to unsigned int)."""
        K = self.K
        lim = integer_limits(decl.type)
        to = integer_limits(e.type)
        while e.kind == K.PAREN_EXPR:
            e = children(e)[0]
        if lim is None or to is None or to[0] != 0 or to[1] < lim[1] or \
                e.kind != K.UNEXPOSED_EXPR or len(children(e)) != 1:
            return False
        return self._is_decl(children(e)[0], decl)

    def _step(self, inc, decl):
        """("add", Iv of S) for `k++`, `++k`, `k += S`; ("mul", C) for `k *= C`, `k <<= c`;
        ("div", C) for `k /= C`, `k >>= c` (constants C >= 2, 1 <= c < 31); else None."""
        K = self.K
        if inc.kind == K.UNARY_OPERATOR and self._uop(inc) in ("++", "post++") and \
                self._is_decl(children(inc)[0], decl, exact=True):
            return "add", Iv(1, 1, lim=None)
        if inc.kind != K.COMPOUND_ASSIGNMENT_OPERATOR:
            return None
        op = self._bop(inc)
        target, step = children(inc)
        if not self._is_decl(target, decl, exact=True) or self._writes(step, decl):
            return None
        if op == "+=":
            return "add", self.value(step)
        c = evaluate_int(step)
        if c is None:
            return None
        if op in ("<<=", ">>="):
            if not 1 <= c < 31:
                return None
            c = 1 << c
        elif op not in ("*=", "/=") or c < 2:
            return None
        return ("mul" if op in ("*=", "<<=") else "div"), c


__all__ = ["LoopValues"]
