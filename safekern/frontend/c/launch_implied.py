"""Guards a flag implies, and the bounds they give by linear reasoning, for launch predicates
(launch.py).

Rodinia's hotspot (and pathfinder) store through an index only where a flag says the thread
computed something:

    int xidx = blkX + tx;  int validXmin = (blkX < 0) ? -blkX : 0;  ...
    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (... && IN_RANGE(tx, validXmin, validXmax) && ...) { computed = true; ... }
        ...
    }
    if (computed) temp_dst[grid_cols * yidx + xidx] = ...;

Intervals lose both steps: the flag says nothing about `tx`, and even `tx >= validXmin` bounds
`blkX + tx` below only through the relation between `blkX` and `validXmin`. Two parts:

- **Flag guards.** A local `computed` whose every write is `computed = <literal>` (its
  initializer too, if any: false), whose address is never taken, and that is read as the whole
  condition (or a conjunct) of an `if` around the use: where it is true, the last write was a
  true one, so the conditions of the `if`s around that write held then. Their conjuncts that
  read only *stable* values -- constants, scalar parameters the kernel never writes, thread
  and block ids and sizes, locals defined once from stable values -- hold at the use too (the
  same values). A flag with no initializer must be written before the use on every path: a
  statement `computed = ...;` between its declaration and the use, or a `for (int i = A; i <
  B; ...)` loop there whose body starts with one -- then the predicate also needs `A < B`.
- **Linear bounds.** Under such guards (`x OP y`, as `A >= 0` with A linear), the value of a
  stable local is its definition expanded into a linear form over stable atoms (products of
  two non-constants, ids, parameters), a conditional `c ? a : b` splitting it into cases (c
  and !c become guards of each case). In each case, a lower bound is the atoms' interval
  bound of L, or of L - A for a guard A >= 0 (L = A + (L - A) >= L - A), or of L - A - A'
  for two; an upper bound the same with +. The bound over all cases is their min (max).
  Each C expression expanded must have a known interval (its side conditions say it fits its
  type: the C arithmetic is the mathematical one); a conversion that changes values, a load,
  anything else is an atom only where it is stable, and otherwise gives nothing.

Only accesses under a flag guard use this (`LaunchAnalysis.add`): elsewhere intervals decide,
and the launch's mask stays as small as it was.
"""
from __future__ import annotations

from .launch_vars import _UNKNOWN, Iv, _key, _same, _tightest
from .parse import children, evaluate_int, strip
from .ranges import integer_limits

_CASES = 32                  # cases (products of conditionals) followed, at most
_OPS = {"<": (-1, 1, -1), "<=": (-1, 1, 0), ">": (1, -1, -1), ">=": (1, -1, 0)}
_NEG = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _lin_add(a, b, sign=1):
    terms = dict(a[0])
    for k, v in b[0].items():
        terms[k] = terms.get(k, 0) + sign * v
        if not terms[k]:
            del terms[k]
    return terms, a[1] + sign * b[1]


def _guard(x, op, y):
    """`x OP y` (linear forms) as A with A >= 0."""
    sx, sy, c = _OPS[op]          # x < y: y - x - 1 >= 0
    terms, const = _lin_add(({}, 0), x, sx)
    terms, const = _lin_add((terms, const), y, sy)
    return terms, const + c


class ImpliedGuards:
    """Mixin of launch.LaunchAnalysis (needs VariableValues and value())."""

    # -- flag guards ----------------------------------------------------------------------------
    def implied_at(self, at):
        """implied_guards(at), once per use."""
        memo = self.__dict__.setdefault("_implied_memo", {})
        k = _key(at)
        if k not in memo:
            memo[k] = ([], set())           # (a cycle: none)
            memo[k] = self.implied_guards(at)
        return memo[k]

    def implied_guards(self, at):
        """(the comparisons (x, op, y) that hold at `at` because a flag around it is true,
        the side conditions they need) -- ([], ...) where no flag guards `at`."""
        chain = self.parents.get(_key(at))
        out, conds = [], set()
        if chain is None:
            return out, conds
        chain = chain + (at,)
        for i in range(len(chain) - 1, 0, -1):
            p, c = chain[i - 1], chain[i]
            ch = children(p)
            if p.kind != self.K.IF_STMT or len(ch) not in (2, 3) or not _same(c, ch[1]):
                continue
            for conj in self._conjuncts(ch[0]):
                flag = self._flag(conj)
                if flag is not None:
                    found = self._flag_conditions(flag, p)
                    if found is not None:
                        out += found[0]
                        conds |= found[1]
        return out, conds

    def _conjuncts(self, cond):
        c = strip(cond)
        while c.kind == self.K.PAREN_EXPR and len(children(c)) == 1:
            c = strip(children(c)[0])
        if c.kind == self.K.BINARY_OPERATOR and self._bop(c) == "&&":
            a, b = children(c)
            return self._conjuncts(a) + self._conjuncts(b)
        return [c]

    def _flag(self, e):
        """The local `e` reads as a truth value (a bool or integer flag), or None."""
        K = self.K
        while e.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(children(e)) == 1:
            e = children(e)[0]
        if e.kind != K.DECL_REF_EXPR or e.referenced is None:
            return None
        d = e.referenced
        if d.kind != K.VAR_DECL or not self._plain_local(d) or \
                d.type.get_canonical().kind.name not in ("BOOL", "INT", "UINT"):
            return None
        return d

    def _flag_conditions(self, flag, use_if):
        """The comparisons a true `flag` implies at the `if` `use_if`, and the side
        conditions (its definite assignment), or None."""
        memo = self.__dict__.setdefault("_flag_memo", {})
        key = (flag.hash, _key(use_if))
        if key not in memo:
            memo[key] = self._flag_scan(flag, use_if)
        return memo[key]

    def _flag_scan(self, flag, use_if):
        K = self.K
        true_writes = []
        init = [c for c in children(flag) if c.kind.is_expression()]
        if init and self._literal(init[-1]) != 0:
            return None
        for c, parents in self._walk_body():
            if c.kind != K.DECL_REF_EXPR or c.referenced is None or \
                    c.referenced.hash != flag.hash:
                continue
            p = parents[-1]
            if p.kind == K.UNEXPOSED_EXPR:
                continue                                  # a read
            ch = children(p)
            if p.kind != K.BINARY_OPERATOR or self._bop(p) != "=" or not _same(ch[0], c):
                return None                               # &flag, flag++, flag += ...
            value = self._literal(ch[1])
            if value is None:
                return None
            if value:
                true_writes.append(parents)
        if not true_writes:
            return None
        common = None
        for parents in true_writes:
            found = {}
            for i in range(len(parents) - 1, 0, -1):
                p, c = parents[i - 1], parents[i]
                ch = children(p)
                if p.kind == K.IF_STMT and len(ch) in (2, 3) and _same(c, ch[1]):
                    for conj in self._conjuncts(ch[0]):
                        cmp = self._comparison(conj)
                        if cmp is not None:
                            found[self._shape(conj)] = cmp
            common = found if common is None else {k: v for k, v in common.items()
                                                   if k in found}
        conds = set()
        if not init:
            assigned = self._assigned_before(flag, use_if)
            if assigned is None:
                return None
            conds |= assigned
        return list(common.values()), conds

    def _shape(self, c) -> str:
        """The same expression of the same declarations (text fails inside macros)."""
        ref = c.referenced.hash if c.kind.name.endswith("REF_EXPR") and c.referenced else ""
        op = self._bop(c) if c.kind == self.K.BINARY_OPERATOR else (
            self._uop(c) if c.kind == self.K.UNARY_OPERATOR else "")
        lit = evaluate_int(c) if c.kind == self.K.INTEGER_LITERAL else ""
        return (f"{c.kind.name}:{c.spelling}:{ref}:{op}:{lit}("
                + ",".join(self._shape(k) for k in children(c)) + ")")

    def _literal(self, e):
        """The value of a `true`/`false`/integer literal, or None."""
        K = self.K
        e = strip(e)
        while e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) and len(children(e)) == 1:
            e = children(e)[0]
        if e.kind.name == "CXX_BOOL_LITERAL_EXPR":
            return int(self.ps.text(e).strip() == "true")
        return evaluate_int(e) if e.kind == K.INTEGER_LITERAL else None

    def _walk_body(self):
        walked = self.__dict__.get("_walked")
        if walked is None:
            from .parse import walk
            walked = self.__dict__["_walked"] = list(walk(self.body, (self.fn,)))
        return walked

    def _assigned_before(self, flag, use_if):
        """Side conditions under which a flag declared without a value is written before
        `use_if` (module doc), or None."""
        K = self.K
        chain = self.parents.get(_key(use_if), ()) + (use_if,)
        for i in range(len(chain) - 1, 0, -1):
            block, c = chain[i - 1], chain[i]
            if block.kind != K.COMPOUND_STMT:
                continue
            sibs = children(block)
            at = next((j for j, s in enumerate(sibs) if _same(s, c)), None)
            decl_at = next((j for j, s in enumerate(sibs[:at or 0]) if s.kind == K.DECL_STMT
                            and any(d.hash == flag.hash for d in children(s))), None)
            if decl_at is None:
                continue
            for s in sibs[decl_at + 1:at]:
                if self._writes_flag(s, flag):
                    return set()
                cond = self._runs_once(s, flag)
                if cond is not None:
                    return cond
            return None
        return None

    def _writes_flag(self, s, flag) -> bool:
        ch = children(s)
        return s.kind == self.K.BINARY_OPERATOR and self._bop(s) == "=" and \
            self._flag(ch[0]) is not None and self._flag(ch[0]).hash == flag.hash

    def _runs_once(self, s, flag):
        """`for (int i = A; i < B; ...) { flag = ...; ... }`: {A < B} as a side condition."""
        K = self.K
        ch = children(s)
        if s.kind != K.FOR_STMT or len(ch) != 4 or ch[3].kind != K.COMPOUND_STMT:
            return None
        body = children(ch[3])
        if not body or not self._writes_flag(body[0], flag) or ch[0].kind != K.DECL_STMT:
            return None
        decls = children(ch[0])
        cond = strip(ch[1])
        if len(decls) != 1 or cond.kind != K.BINARY_OPERATOR or \
                self._bop(cond) not in ("<", "<="):
            return None
        left, bound = children(cond)
        if not self._is_decl(left, decls[0]):
            return None
        start = [c for c in children(decls[0]) if c.kind.is_expression()]
        if not start:
            return None
        a, b_ = self.value(start[-1]), self.value(bound)
        if not (a.known and b_.known):
            return None
        b = self.b
        c = b.le(b.add(a.hi, 1) if self._bop(cond) == "<" else a.hi, b_.lo)
        if c is False:
            return None
        return set(a.conds | b_.conds) | ({c} if c is not True else set())

    def _comparison(self, conj):
        """(x, op, y) of a stable comparison whose operands compare as written, or None."""
        c = strip(conj)
        while c.kind == self.K.PAREN_EXPR and len(children(c)) == 1:
            c = strip(children(c)[0])
        if c.kind != self.K.BINARY_OPERATOR or self._bop(c) not in _OPS:
            return None
        x, y = children(c)
        x, y = self._peel(x), self._peel(y)
        if x is None or y is None or not (self._stable_expr(x) and self._stable_expr(y)):
            return None
        return x, self._bop(c), y

    # -- stable values -----------------------------------------------------------------------
    def _peel(self, e):
        """`e` through parentheses and conversions that keep every value, or None."""
        K = self.K
        while e.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR) and \
                len(children(e)) == 1:
            inner = children(e)[0]
            if e.kind != K.PAREN_EXPR:
                to, frm = integer_limits(e.type), integer_limits(inner.type)
                if to is None or frm is None or to[0] > frm[0] or to[1] < frm[1]:
                    return None
            e = inner
        return e

    def _stable_expr(self, e) -> bool:
        """Every value `e` reads is the same all through the thread (module doc)."""
        memo = self.__dict__.setdefault("_stable_memo", {})
        k = _key(e)
        if k not in memo:
            memo[k] = False                 # (a cycle is not stable)
            memo[k] = self._stable_scan(e)
        return memo[k]

    def _stable_scan(self, e) -> bool:
        K = self.K
        if evaluate_int(e) is not None:
            return True
        if e.kind == K.DECL_REF_EXPR:
            d = e.referenced
            if d is None or integer_limits(d.type) is None:
                return False
            if d.kind == K.PARM_DECL:           # (the kernel's own: a lambda's varies)
                return any(p.hash == d.hash for p in self.params) and \
                    not self._writes(self.body, d)
            if not self.single_definition(d):
                return False
            return self._stable_expr(children(d)[-1])
        if e.kind == K.MEMBER_REF_EXPR:
            return self._cuda_builtin(e, children(e)).known
        if e.kind == K.CALL_EXPR:
            return self._cl_builtin(e, children(e)).known
        if e.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.BINARY_OPERATOR,
                      K.UNARY_OPERATOR, K.CONDITIONAL_OPERATOR):
            if e.kind == K.BINARY_OPERATOR and self._bop(e) in ("=", "+=", "-=", "*=", "/=",
                                                                 "%=", "<<=", ">>=", "&=",
                                                                 "|=", "^=", ","):
                return False
            if e.kind == K.UNARY_OPERATOR and self._uop(e) not in ("-", "+", "!", "~"):
                return False
            return all(self._stable_expr(c) for c in children(e))
        return False

    # -- linear bounds ---------------------------------------------------------------------------
    def implied_bound(self, decl, guards, lim) -> Iv:
        """Bounds of the stable local `decl` under `guards` ((x, op, y) each), or unknown.
        (The expressions are evaluated where they are: a stable value is the same at the
        use, and looking it up there would come back here.)"""
        if not self._stable_expr_decl(decl):
            return _UNKNOWN
        saved, self._lookup_at = self._lookup_at, None
        try:
            return self._implied_bound(decl, guards, lim)
        finally:
            self._lookup_at = saved

    def _implied_bound(self, decl, guards, lim) -> Iv:
        conds = set()
        cases = self._lin(children(decl)[-1], conds, 0)
        if cases is None:
            return _UNKNOWN
        given = [[]]
        for x, op, y in guards:           # each guard's own cases multiply them
            gx, gy = self._lin(x, conds, 0), self._lin(y, conds, 0)
            if gx is None or gy is None or len(given) * len(gx) * len(gy) > _CASES:
                continue                  # (a guard left out: bounds only get looser)
            given = [g + cx + cy + [_guard(lx, op, ly)]
                     for g in given for cx, lx in gx for cy, ly in gy]
        if len(given) * len(cases) > _CASES:
            return _UNKNOWN
        # (no case split and no atom a guard speaks of: the guards add nothing to intervals)
        spoken = {k for g in given for A in g for k in A[0]}
        if all(not cg and not spoken & set(L[0]) for cg, L in cases):
            return _UNKNOWN
        b = self.b
        los, his = [], []
        for g in given:
            for case_guards, L in cases:
                every = g + case_guards
                lo = self._side(L, every, -1, conds)
                hi = self._side(L, every, 1, conds)
                if lo is None or hi is None:
                    return _UNKNOWN
                los.append(lo)
                his.append(hi)
        return Iv(b.min(*los), b.max(*his), conds, lim)

    def _stable_expr_decl(self, decl) -> bool:
        return self.single_definition(decl) and self._stable_expr(children(decl)[-1])

    def _side(self, L, guards, sign, conds):
        """The best lower (sign -1) or upper (+1) bound of L under guards A >= 0."""
        b = self.b
        forms = {}                              # the forms with the fewest atoms (they are
        for i, A in enumerate([None] + guards):  # the bounds the guards tighten most; each
            for B in [None] + guards[i:]:       # is sound, fewer keep the launch's mask short)
                M = L if A is None else _lin_add(L, A, sign)   # lower: L - A; upper: L + A
                if B is not None and A is not None:
                    M = _lin_add(M, B, sign)
                forms.setdefault(len(M[0]), {})[repr(sorted(M[0].items())) + str(M[1])] = M
        options = [self._atoms_bound(M, sign, conds) for M in forms[min(forms)].values()]
        options = [o for o in options if o is not None]
        if not options:
            return None
        return b.max(*options) if sign < 0 else b.min(*options)

    def _atoms_bound(self, L, sign, conds):
        b = self.b
        total = L[1]
        for k, coef in L[0].items():
            iv = self.value(self._atoms[k])
            if not iv.known:
                return None
            conds |= iv.conds
            end = iv.hi if (coef > 0) == (sign > 0) else iv.lo
            total = b.add(total, b.mul(end, coef))
        return total

    def _lin(self, e, conds, depth):
        """[(guards, L)]: the cases of `e` as linear forms (module doc), or None."""
        memo = self.__dict__.setdefault("_lin_memo", {})
        k = _key(e)
        if k not in memo:
            mine = set()
            memo[k] = (self._lin_of(e, mine, depth), mine)
        conds |= memo[k][1]
        return memo[k][0]

    def _lin_of(self, e, conds, depth):
        K = self.K
        if depth > 64:
            return None
        iv = self.value(e)
        if not iv.known:
            return None
        conds |= iv.conds                  # (it fits its type: C's arithmetic is exact)
        v = evaluate_int(e)
        if v is not None:
            return [([], ({}, v))]
        inner = self._peel(e)
        if inner is None:
            return self._atom(e)
        if inner is not e:
            return self._lin(inner, conds, depth + 1)
        if e.kind == K.DECL_REF_EXPR and e.referenced is not None and \
                e.referenced.kind == K.VAR_DECL and self._stable_expr_decl(e.referenced):
            return self._lin(children(e.referenced)[-1], conds, depth + 1)
        ch = children(e)
        if e.kind == K.BINARY_OPERATOR and len(ch) == 2 and self._bop(e) in ("+", "-", "*"):
            op = self._bop(e)
            if op == "*":
                k = [evaluate_int(c) for c in ch]
                if k[0] is None and k[1] is None:
                    return self._atom(e)
                cases = self._lin(ch[1] if k[0] is not None else ch[0], conds, depth + 1)
                c = k[0] if k[0] is not None else k[1]
                return None if cases is None else [
                    (g, ({a: w * c for a, w in L[0].items()}, L[1] * c)) for g, L in cases]
            a, b_ = self._lin(ch[0], conds, depth + 1), self._lin(ch[1], conds, depth + 1)
            if a is None or b_ is None or len(a) * len(b_) > _CASES:
                return None
            return [(ga + gb, _lin_add(la, lb, 1 if op == "+" else -1))
                    for ga, la in a for gb, lb in b_]
        if e.kind == K.UNARY_OPERATOR and len(ch) == 1 and self._uop(e) in ("-", "+"):
            cases = self._lin(ch[0], conds, depth + 1)
            if cases is None or self._uop(e) == "+":
                return cases
            return [(g, ({a: -w for a, w in L[0].items()}, -L[1])) for g, L in cases]
        if e.kind == K.CONDITIONAL_OPERATOR and len(ch) == 3:
            cmp = self._comparison(ch[0])
            if cmp is None:
                return self._atom(e)
            x, op, y = cmp
            lx, ly = self._lin(x, conds, depth + 1), self._lin(y, conds, depth + 1)
            ta, fa = self._lin(ch[1], conds, depth + 1), self._lin(ch[2], conds, depth + 1)
            if None in (lx, ly, ta, fa) or len(lx) * len(ly) * (len(ta) + len(fa)) > _CASES:
                return self._atom(e)
            out = []
            for gx, X in lx:
                for gy, Y in ly:
                    out += [(gx + gy + g + [_guard(X, op, Y)], L) for g, L in ta]
                    out += [(gx + gy + g + [_guard(X, _NEG[op], Y)], L) for g, L in fa]
            return out
        return self._atom(e)

    def _atom(self, e):
        if not self._stable_expr(e):
            return None
        atoms = self.__dict__.setdefault("_atoms", {})
        k = self._atom_key(e)
        atoms.setdefault(k, e)
        return [([], ({k: 1}, 0))]

    def _atom_key(self, e):
        """The same value, the same key: a declaration for a reference, else the text with
        the declarations it reads (`small_block_rows * by` from either place it is read)."""
        if e.kind == self.K.DECL_REF_EXPR and e.referenced is not None:
            return ("decl", e.referenced.hash)
        from .parse import walk
        refs = tuple(c.referenced.hash for c, _ in walk(e)
                     if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None)
        return ("expr", self.ps.text(e), refs)


__all__ = ["ImpliedGuards"]
