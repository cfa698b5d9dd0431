"""What a loop variable ranges over: the constant index ranges that prove an access in bounds.

The OpenCL front end's elimination (checks.py): an access `t[v + c]` into an array of constant
extent needs no check when, at that point, `v` is the variable of an enclosing loop
`for (T v = C0; v < C1; v += S)` whose values stay in a constant range (see `_induction_ranges`
for when they do), or the index is a constant.

    ranges = LoopRanges(ps, body)
    ranges.index_range(index_cursor, at=offset)   # (lo, hi) or None
"""
from __future__ import annotations

from .parse import binary_op, children, evaluate_int, kinds, strip, unary_op, walk

_SIGNED = {"CHAR_S", "SCHAR", "WCHAR", "SHORT", "INT", "LONG", "LONGLONG", "INT128"}
_UNSIGNED = {"CHAR_U", "UCHAR", "CHAR16", "CHAR32", "USHORT", "UINT", "ULONG", "ULONGLONG",
             "UINT128"}


def integer_limits(t) -> tuple | None:
    """(least, greatest) value of an integer type, or None for any other type."""
    t = t.get_canonical()
    bits = 8 * t.get_size()
    if t.kind.name in _SIGNED and bits > 0:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if t.kind.name in _UNSIGNED and bits > 0:
        return 0, (1 << bits) - 1
    return None


class LoopRanges:
    """The loop variables of one function body with a constant range, and where it holds."""

    def __init__(self, ps, body):
        self.ps = ps
        self.K = kinds()
        self.loop_ranges = []           # (body_start, body_end, decl_hash, lo, hi)
        self._induction_ranges(body)

    def _induction_ranges(self, body):
        """for (T v = C0; v < C1; v += S) (or <=, v++) with S > 0: v in [C0, C1) on every
        iteration, if
        - C0, C1 and the last value plus S are values of T: v never wraps around (`char v =
          120; v < 200` goes negative) and the comparison is the one written (`unsigned u;
          u < -1` compares with UINT_MAX);
        - nothing in the body writes v or takes a reference to it: every use of v is read
          (an lvalue-to-rvalue conversion);
        - nothing jumps into the body from outside (a label or a `case` of an outer switch
          inside it: v would be whatever it was)."""
        K = self.K
        for c, _ in walk(body):
            if c.kind != K.FOR_STMT:
                continue
            ch = children(c)
            if len(ch) != 4:
                continue
            init, cond, inc, loop_body = ch
            var, lo, limits = None, None, None
            if init.kind == K.DECL_STMT:
                vs = children(init)
                if len(vs) == 1 and vs[0].kind == K.VAR_DECL:
                    vals = children(vs[0])
                    if vals:
                        var, lo = vs[0].hash, evaluate_int(vals[-1])
                        limits = integer_limits(vs[0].type)
            if var is None or lo is None or limits is None or cond.kind != K.BINARY_OPERATOR:
                continue
            op = binary_op(self.ps, cond)
            a, b = children(cond)
            sa = strip(a)
            if not (sa.kind == K.DECL_REF_EXPR and sa.referenced is not None
                    and sa.referenced.hash == var) or op not in ("<", "<="):
                continue
            bound = evaluate_int(b)
            step = self._increment(inc, var)
            if bound is None or step is None:
                continue
            hi = bound - 1 if op == "<" else bound
            if not (limits[0] <= lo <= limits[1] and limits[0] <= bound <= limits[1] and
                    hi + step <= limits[1]):
                continue
            if self._writes_in(loop_body, var) or self._entered_from_outside(loop_body):
                continue
            s, e = self.ps.offsets(loop_body)
            cs, ce = self.ps.offsets(cond)
            self.loop_ranges.append((min(s, cs), e, var, lo, hi))

    def _increment(self, inc, var) -> int | None:
        """The step of `v++` / `++v` / `v += S` (S > 0 constant), else None."""
        K = self.K
        if inc.kind == K.UNARY_OPERATOR and unary_op(self.ps, inc) in ("++", "post++"):
            t = strip(children(inc)[0])
            if t.kind == K.DECL_REF_EXPR and t.referenced is not None and \
                    t.referenced.hash == var:
                return 1
            return None
        if inc.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and binary_op(self.ps, inc) == "+=":
            t, step = children(inc)
            t = strip(t)
            v = evaluate_int(step)
            if t.kind == K.DECL_REF_EXPR and t.referenced is not None and \
                    t.referenced.hash == var and v is not None and v > 0:
                return v
        return None

    def _writes_in(self, body, var) -> bool:
        """Any use of `var` in `body` other than reading its value: an assignment, ++/--, `&`,
        a C++ reference bound to it (`int& r = v`, `f(v)` with `f(int&)`), `sizeof(v)`."""
        K = self.K
        for c, parents in walk(body):
            if c.kind != K.DECL_REF_EXPR or c.referenced is None or c.referenced.hash != var:
                continue
            up = [p for p in parents if p.kind != K.PAREN_EXPR]
            if not up or up[-1].kind != K.UNEXPOSED_EXPR:     # no lvalue-to-rvalue conversion
                return True
        return False

    def _entered_from_outside(self, body) -> bool:
        K = self.K
        for c, parents in walk(body):
            if c.kind == K.LABEL_STMT:
                return True
            if c.kind in (K.CASE_STMT, K.DEFAULT_STMT) and not any(
                    p.kind == K.SWITCH_STMT for p in parents[1:]):
                return True
        return False

    def index_range(self, index, at: int):
        """Constant [lo, hi] of an index expression at byte `at`, else None."""
        K = self.K
        v = evaluate_int(index)
        if v is not None:
            return v, v
        c = strip(index)
        offset = 0
        if c.kind == K.BINARY_OPERATOR and binary_op(self.ps, c) in ("+", "-"):
            a, b = children(c)
            k = evaluate_int(b)
            if k is None:
                return None
            offset = k if binary_op(self.ps, c) == "+" else -k
            c = strip(a)
        if c.kind != K.DECL_REF_EXPR or c.referenced is None:
            return None
        for s, e, var, lo, hi in self.loop_ranges:
            if var == c.referenced.hash and s <= at < e:
                return lo + offset, hi + offset
        return None


__all__ = ["LoopRanges", "integer_limits"]
