"""Differences a guard makes non-negative, for launch predicates (launch.py).

Intervals alone cannot bound `tid - d` below by 0 in

    if (tid >= d) v = sm[tid - d];

(tid in [d.lo, ...], d in [..., d.hi]: the interval of the difference reaches d.lo - d.hi).
`Relations.relational_floor(left, right, at)` finds such a guard: a condition that holds where
`at` is evaluated -- the condition of an enclosing `if` (then: true, else: false), `while` or
`for` (their body: true), the left side of `&&`/`||` (their right side: true/false) or of
`?:` -- with a conjunct that compares the same two variables, `L >= R` (floor 0) or `L > R`
(floor 1), or the negation of the opposite (`!(L < R)`, the else of `if (L < R)`).

Sound because:
- both sides are variables whose value the guarded part cannot change: plain locals of the
  kernel (automatic, not volatile, no other address space) or scalar parameters the kernel
  never writes, and nothing in the guarding statement writes either or takes its address
  (launch_vars' `_writes`); the analysis refuses kernels with goto, labels or switch, so the
  guarded part runs only after its condition;
- each side is the variable itself through conversions that keep every value of its type,
  in the comparison and in the difference alike: both compare and subtract mathematically;
- the difference's own interval stays: its upper bound and the side conditions that it fits
  its type (so it is the mathematical one) are unchanged; only the lower bound is raised.
"""
from __future__ import annotations

from .launch_vars import _FLIP, _NEGATE, _key, _same
from .parse import children, strip
from .ranges import integer_limits


class Relations:
    """Mixin of launch.LaunchAnalysis (needs VariableValues' _writes, _plain_local, _bop,
    _uop, parents)."""

    def relational_floor(self, left, right, at):
        """0 or 1 where a guard proves `left - right` >= that at `at`, else None."""
        dl, dr = self._stable(left), self._stable(right)
        if dl is None or dr is None or dl.hash == dr.hash:
            return None
        chain = self.parents.get(_key(at))
        if chain is None:
            return None
        chain = chain + (at,)
        K = self.K
        best = None
        for i in range(len(chain) - 1, 0, -1):
            p, c = chain[i - 1], chain[i]
            ch = children(p)
            cond = truth = None
            if p.kind == K.IF_STMT and len(ch) in (2, 3) and not _same(c, ch[0]):
                cond, truth = ch[0], _same(c, ch[1])
            elif p.kind in (K.WHILE_STMT,) and len(ch) == 2 and _same(c, ch[1]):
                cond, truth = ch[0], True
            elif p.kind == K.FOR_STMT and len(ch) == 4 and _same(c, ch[3]):
                cond, truth = ch[1], True
            elif p.kind == K.BINARY_OPERATOR and len(ch) == 2 and _same(c, ch[1]) \
                    and self._bop(p) in ("&&", "||"):
                cond, truth = ch[0], self._bop(p) == "&&"
            elif p.kind == K.CONDITIONAL_OPERATOR and len(ch) == 3 and \
                    not _same(c, ch[0]):
                cond, truth = ch[0], _same(c, ch[1])
            if cond is None or self._writes(p, dl) or self._writes(p, dr):
                continue
            floor = self._compares(cond, truth, dl, dr)
            if floor is not None:
                best = floor if best is None else max(best, floor)
                if best == 1:
                    break
        return best

    def _compares(self, cond, truth, dl, dr):
        """The floor of dl - dr that `cond` having value `truth` implies, or None."""
        K = self.K
        c = strip(cond)
        if c.kind == K.UNARY_OPERATOR and self._uop(c) == "!":
            return self._compares(children(c)[0], not truth, dl, dr)
        if c.kind != K.BINARY_OPERATOR:
            return None
        op = self._bop(c)
        a, b = children(c)
        if op in ("&&", "||"):
            if (op == "&&") != truth:
                return None
            floors = [f for f in (self._compares(a, truth, dl, dr),
                                  self._compares(b, truth, dl, dr)) if f is not None]
            return max(floors) if floors else None
        if op not in _NEGATE:
            return None
        if not truth:
            op = _NEGATE[op]
        da, db = self._stable(a), self._stable(b)
        if da is None or db is None:
            return None
        if (da.hash, db.hash) == (dr.hash, dl.hash):
            op = _FLIP[op]
        elif (da.hash, db.hash) != (dl.hash, dr.hash):
            return None
        return {">=": 0, ">": 1}.get(op)

    def _stable(self, e):
        """The declaration `e` reads -- through parentheses and conversions that keep every
        value -- if it is a plain local or a scalar parameter the kernel never writes."""
        K = self.K
        while True:
            if e.kind == K.PAREN_EXPR and len(children(e)) == 1:
                e = children(e)[0]
                continue
            if e.kind == K.UNEXPOSED_EXPR and len(children(e)) == 1:
                inner = children(e)[0]
                to, frm = integer_limits(e.type), integer_limits(inner.type)
                if to is None or frm is None or to[0] > frm[0] or to[1] < frm[1]:
                    return None
                e = inner
                continue
            break
        if e.kind != K.DECL_REF_EXPR or e.referenced is None:
            return None
        d = e.referenced
        if integer_limits(d.type) is None:
            return None
        if d.kind == K.PARM_DECL:
            return None if self._writes(self.body, d) else d
        if d.kind == K.VAR_DECL and self._plain_local(d):
            return d
        return None


__all__ = ["Relations"]
