"""Launch predicates of C kernels (CUDA C and OpenCL C): checks the host can prove at a launch.

A check the static rules keep -- `out[i]` on a pointer parameter, `tile[ty][tx]` on a shared
array -- is often in bounds for every launch the kernel is written for, for a reason only the
launch knows:

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i];          // in bounds when elements(out) >= min(grid size, n)

This module bounds an index by *interval arithmetic over launch facts* (launch_expr.py):
integer scalar parameters the kernel never assigns (exact values), the element counts of
pointer parameters (their hidden sizes), blockDim/gridDim and the thread indices within them
(CUDA), the global/local sizes and the work-item ids within them (OpenCL). The bounds are
expressions the host evaluates at each launch; the predicate of a check is `0 <= lo` and
`hi < extent`, plus every side condition the bounds rest on.

Soundness. An interval is claimed for an expression only where every value the expression can
take lies in it:
- constants, thread indices (`threadIdx.x` in [0, blockDim.x - 1], `get_global_id(0)` in
  [0, global size - 1]: the backend launches a variant only without a global offset);
- scalar parameters never assigned in the kernel: their exact value (the host reads the value
  the kernel reads: an integer that fits the parameter's type);
- local integer variables (automatic, not volatile, not __shared__/__local), at a use: the
  value of the assignment or declaration that reaches it on every path -- found by walking
  back from the use through the preceding statements of each enclosing block; a statement
  that writes the variable otherwise (or takes its address), a loop around the use that writes
  it, a label, `switch` or `goto` anywhere in the kernel gives no interval -- narrowed by the
  guards on the way (`if (i < n)`, `&&`, `?:`, `while`/`for` conditions, `if (i >= n)
  return;` before it);
- the variable of `for (T k = A; k < B; k += S)` (k not written in the body or condition,
  S >= 1): [A.lo, B.hi - 1], with `B.hi - 1 + S.hi` within T (k never wraps); doubling and
  halving loops (`k *= 2`, `k >>= 1`) likewise (launch_loops.py);
- a difference `x - y` under a guard `x >= y` is not negative (launch_relations.py);
- integer `min`, `max`, `clamp` of the built-ins bound their result by their arguments';
- where bounds rest on different side conditions (a definition's and a guard's), the bound is
  the tightest of those whose conditions hold at the launch (Builder.pick);
- arithmetic (+ - * / % & << >>, casts) where the result provably fits its C type: each such
  fit is a side condition of the predicate, evaluated at the launch with the real values. A
  value whose interval is not known (a load, a float) makes the predicate impossible, never
  wrong.
"""
from __future__ import annotations

import os

from .cuda_headers import PRELUDE_NAME
from .launch_expr import Builder, LaunchFact, LaunchPredicate
from .launch_implied import ImpliedGuards
from .launch_loops import LoopValues
from .launch_relations import Relations
from .launch_vars import _UNKNOWN, Iv, VariableValues, _key
from .parse import children, evaluate_int, function_body, kids, kinds, strip, walk
from .ranges import integer_limits
from .struct_fields import StructFields

_CUDA_DIMS = {"threadIdx": "block", "blockIdx": "grid", "blockDim": "block", "gridDim": "grid"}
_CL_IDS = {"get_global_id": "global", "get_local_id": "local", "get_group_id": "groups",
           "get_global_size": "global", "get_local_size": "local", "get_num_groups": "groups"}
_ELEMENT_KINDS = {"CHAR_S", "SCHAR", "UCHAR", "CHAR_U", "SHORT", "USHORT", "INT", "UINT",
                  "LONG", "ULONG", "LONGLONG", "ULONGLONG", "FLOAT", "DOUBLE", "HALF",
                  "FLOAT16"}


class LaunchAnalysis(ImpliedGuards, LoopValues, Relations, VariableValues):
    """The launch predicates of one kernel's checks (see the module doc).

    `dialect`: "cuda" or "opencl". `predicate(code, index_cursor, extent)` with extent an int
    (an array's constant extent) or ("param", index) (a pointer parameter's element count)."""

    def __init__(self, ps, fn, dialect: str, fields=()):
        self.ps, self.fn, self.dialect = ps, fn, dialect
        self.K = kinds()
        self.b = Builder()
        self.body = function_body(fn)
        self.params = [c for c in kids(fn) if c.kind == self.K.PARM_DECL]
        self.pointer_slots = {}
        for i, p in enumerate(self.params):
            if p.type.get_canonical().kind.name in ("POINTER", "INCOMPLETEARRAY",
                                                    "CONSTANTARRAY"):
                self.pointer_slots[i] = len(self.pointer_slots)
        # the struct pointer fields' hidden sizes follow the pointers' ((param, offset) order)
        self.field_slots = {key: len(self.pointer_slots) + k for k, key in enumerate(fields)}
        self._struct_fields = None
        self.parents, self.by_range = {}, {}
        self.ok = self.body is not None
        K = self.K
        banned = {K.GOTO_STMT, K.INDIRECT_GOTO_STMT, K.LABEL_STMT, K.SWITCH_STMT,
                  K.CASE_STMT, K.DEFAULT_STMT}
        if self.ok:
            for c, parents in walk(self.body, (fn,)):
                self.parents[_key(c)] = parents
                self.by_range.setdefault(self.ps.offsets(c), c)
                if c.kind in banned or c.kind.name.endswith("ASM_STMT"):
                    self.ok = False
        self._values, self._vars, self._writes_memo = {}, {}, {}
        self._lookup_at = None          # where single definitions are looked up (or None)
        self.preds = []

    # -- the entry -------------------------------------------------------------------------
    def add(self, code: int, index_range: tuple, extent) -> LaunchPredicate | None:
        """The predicate proving the check `code` of the index at bytes `index_range`."""
        if not self.ok:
            return None
        index = self.by_range.get(index_range)
        if index is None or any(p.kind == self.K.LAMBDA_EXPR
                                for p in self.parents[_key(index)]):
            return None
        if isinstance(extent, int):
            ext, ext_text = extent, str(extent)
        elif extent[0] == "field":
            ext = self._field_extent_fact(*extent[1:])
            if ext is None:
                return None
            ext_text = self.b.text(ext)
        else:
            ext = self._extent_fact(extent[1])
            if ext is None:
                return None
            ext_text = self.b.text(ext)
        try:
            iv = self.value(index)
        except RecursionError:
            return None
        if not iv.known:
            return None
        b = self.b
        conds = set(iv.conds)
        texts = []
        for c, text in ((b.le(0, iv.lo), f"{b.text(iv.lo)} >= 0"),
                        (b.le(iv.hi, b.sub(ext, 1)), f"{b.text(iv.hi)} < {ext_text}")):
            if c is False:
                return None
            if c is not True:
                conds.add(c)
                texts.append(text)
        if any(self._folded(c) is False for c in conds):
            return None
        text = " and ".join(texts) or "always"
        pred = LaunchPredicate(code, tuple(sorted(conds, key=lambda n: int(n[1:]))), text)
        self.preds.append(pred)
        return pred

    def result(self):
        return self.b.result(self.preds)

    @staticmethod
    def _folded(c):
        return c if isinstance(c, bool) else None

    def _extent_fact(self, index: int):
        slot = self.pointer_slots.get(index)
        if slot is None:
            return None
        p = self.params[index]
        t = p.type.get_canonical()
        pointee = t.get_pointee() if t.kind.name == "POINTER" else t.get_array_element_type()
        kind = pointee.get_canonical().kind.name
        vector = self.dialect == "opencl" and kind in ("VECTOR", "EXTVECTOR")
        if kind not in _ELEMENT_KINDS and not vector:
            return None
        size = pointee.get_canonical().get_size()
        if size <= 0:
            return None
        return self.b.fact(LaunchFact("extent", param=index, slot=slot, size=size,
                                      text=f"elements({p.spelling})"))

    def _field_extent_fact(self, param: int, offset: int, size: int, name: str):
        """Elements of the struct pointer field at byte `offset` of parameter `param` (its
        hidden size: bytes from the field's address to its allocation's end)."""
        slot = self.field_slots.get((param, offset))
        if slot is None or size <= 0:
            return None
        return self.b.fact(LaunchFact("extent", slot=slot, size=size,
                                      text=f"elements({name})"))

    def _struct_scalar(self, e, lim) -> Iv:
        """`g.nodes`: an integer member of a by-value struct parameter the kernel never
        changes (CUDA C): the value the launch passed."""
        if self.dialect != "cuda" or lim is None:
            return _UNKNOWN
        if self._struct_fields is None:
            self._struct_fields = StructFields(self.ps, self.body, self.params, kernel=True)
        found = self._struct_fields.scalar_of(e)
        if found is None:
            return _UNKNOWN
        param, offset, size, whole = found
        f = self.b.fact(LaunchFact("field", param=param, slot=offset, size=size, lo=lim[0],
                                   hi=lim[1], whole=whole, text=self.ps.text(e).strip()))
        return Iv(f, f, lim=lim)

    # -- values ------------------------------------------------------------------------------
    def value(self, e) -> Iv:
        k = (_key(e), _key(self._lookup_at) if self._lookup_at is not None else None)
        hit = self._values.get(k)
        if hit is None:
            hit = self._value(e)
            lim = integer_limits(e.type)
            if not hit.known and lim is not None and lim[1] - lim[0] < 1 << 16:
                # A value of an 8- or 16-bit type (a loaded `uchar`): its type's range (a
                # wider one would give predicates no launch meets)
                b = self.b
                hit = Iv(lim[0] if hit.lo is None else b.max(hit.lo, lim[0]),
                         lim[1] if hit.hi is None else b.min(hit.hi, lim[1]), hit.conds, lim)
            self._values[k] = hit
        return hit

    def _value(self, e) -> Iv:
        K = self.K
        lim = integer_limits(e.type)
        if lim is None:
            return _UNKNOWN
        v = evaluate_int(e)
        if v is not None:
            if not lim[0] <= v <= lim[1] and lim[0] == 0:
                v %= lim[1] + 1
            return Iv(v, v, lim=lim) if lim[0] <= v <= lim[1] else _UNKNOWN
        kind = e.kind
        ch = children(e)
        if kind == K.PAREN_EXPR and len(ch) == 1:
            return self.value(ch[0])
        if kind in (K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
                    K.CXX_FUNCTIONAL_CAST_EXPR) and ch:
            if kind == K.UNEXPOSED_EXPR and len(ch) != 1:
                return _UNKNOWN
            return self._fit(self.value(ch[-1]), lim)
        if kind == K.DECL_REF_EXPR:
            decl = e.referenced
            if decl is None:
                return _UNKNOWN
            at = e
            if self._lookup_at is not None and self.single_definition(decl):
                at = self._lookup_at            # (launch_vars._definition_value)
            return self._fit(self.var(decl, at), lim)
        if kind == K.MEMBER_REF_EXPR:
            iv = self._cuda_builtin(e, ch)
            return self._fit(iv if iv.known else self._struct_scalar(e, lim), lim)
        if kind == K.CALL_EXPR:
            clamp = self._min_max(e, ch, lim)
            if clamp is not None:
                return clamp
            return self._fit(self._cl_builtin(e, ch), lim)
        if kind == K.BINARY_OPERATOR and len(ch) == 2:
            return self._binary(self._bop(e), ch[0], ch[1], lim)
        if kind == K.UNARY_OPERATOR and len(ch) == 1:
            op = self._uop(e)
            if op == "!":
                return Iv(0, 1, lim=lim)
            if op in ("-", "+"):
                a = self.value(ch[0])
                if not a.known:
                    return _UNKNOWN
                if op == "+":
                    return self._fit(a, lim)
                return self._fit(Iv(self.b.neg(a.hi), self.b.neg(a.lo), a.conds, None), lim)
            return _UNKNOWN
        if kind == K.CONDITIONAL_OPERATOR and len(ch) == 3:
            x, y = self.value(ch[1]), self.value(ch[2])
            if not (x.known and y.known):
                return _UNKNOWN
            return self._fit(Iv(self.b.min(x.lo, y.lo), self.b.max(x.hi, y.hi),
                                x.conds | y.conds), lim)
        return _UNKNOWN

    def _fit(self, iv: Iv, lim) -> Iv:
        """`iv` converted to a type of range `lim`: the same bounds where they fit (a side
        condition each), unknown otherwise."""
        if iv.lim is not None and lim[0] <= iv.lim[0] and iv.lim[1] <= lim[1] and iv.known:
            return Iv(iv.lo, iv.hi, iv.conds, lim)          # every value fits
        if not iv.known:
            if iv.lim is not None and lim[0] <= iv.lim[0] and iv.lim[1] <= lim[1] and \
                    (iv.lo is not None or iv.hi is not None):
                return Iv(iv.lo, iv.hi, iv.conds, lim)      # a wider type keeps the bound
            return _UNKNOWN
        conds = set(iv.conds)
        for c in (self.b.le(lim[0], iv.lo), self.b.le(iv.hi, lim[1])):
            if c is False:
                return _UNKNOWN
            if c is not True:
                conds.add(c)
        return Iv(iv.lo, iv.hi, conds, lim)

    def _binary(self, op, left, right, lim) -> Iv:
        b = self.b
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return Iv(0, 1, lim=lim)
        x, y = self.value(left), self.value(right)
        conds = x.conds | y.conds
        const_y = y.lo if y.known and y.lo == y.hi and isinstance(y.lo, int) else None
        const_x = x.lo if x.known and x.lo == x.hi and isinstance(x.lo, int) else None
        if op == "&":
            m = const_y if const_y is not None and const_y >= 0 else (
                const_x if const_x is not None and const_x >= 0 else None)
            return self._fit(Iv(0, m, frozenset(), None), lim) if m is not None else _UNKNOWN
        if op == "%" and const_y is not None and const_y > 0:
            if lim[0] >= 0:
                return Iv(0, const_y - 1, frozenset(), lim)
            if x.lo is None:
                return Iv(-(const_y - 1), const_y - 1, frozenset(), lim)
            return self._guarded(Iv(0, const_y - 1, x.conds, None), [(0, x.lo)], lim)
        if op == ">>" and const_y is not None and 0 <= const_y < 64:
            if not x.known:
                if lim[0] >= 0:
                    return Iv(0, lim[1] >> const_y, frozenset(), lim)
                return _UNKNOWN
            d = 1 << const_y
            return self._guarded(Iv(b.floordiv(x.lo, d), b.floordiv(x.hi, d), x.conds),
                                 [(0, x.lo)], lim)
        if not (x.known and y.known):
            return _UNKNOWN
        if op == "+":
            return self._fit(Iv(b.add(x.lo, y.lo), b.add(x.hi, y.hi), conds), lim)
        if op == "-":
            iv = self._fit(Iv(b.sub(x.lo, y.hi), b.sub(x.hi, y.lo), conds), lim)
            floor = self.relational_floor(left, right, left) if iv.known else None
            if floor is not None:               # a guard `left >= right` (launch_relations)
                iv = Iv(b.max(iv.lo, floor), iv.hi, iv.conds, iv.lim)
            return iv
        if op == "*":
            return self._fit(self._mul(x, y, const_x, const_y, conds), lim)
        if op == "<<" and const_y is not None and 0 <= const_y < 64:
            d = 1 << const_y
            return self._guarded(Iv(b.mul(x.lo, d), b.mul(x.hi, d), x.conds), [(0, x.lo)], lim)
        if op == "/":
            if const_y is not None and const_y != 0:
                lo, hi = b.tdiv(x.lo, const_y), b.tdiv(x.hi, const_y)
                return self._fit(Iv(lo, hi, conds) if const_y > 0 else Iv(hi, lo, conds), lim)
            return self._guarded(Iv(b.floordiv(x.lo, y.hi), b.floordiv(x.hi, y.lo), conds),
                                 [(0, x.lo), (1, y.lo)], lim)
        if op == "%":
            return self._guarded(Iv(0, b.sub(y.hi, 1), conds), [(0, x.lo), (1, y.lo)], lim)
        return _UNKNOWN

    def _mul(self, x, y, cx, cy, conds) -> Iv:
        b = self.b
        if cy is not None or cx is not None:
            c, v = (cy, x) if cy is not None else (cx, y)
            lo, hi = b.mul(v.lo, c), b.mul(v.hi, c)
            return Iv(lo, hi, conds) if c >= 0 else Iv(hi, lo, conds)
        # Index arithmetic multiplies values that are not negative: that is a side
        # condition (where a launch breaks it, the check stays), and the bounds are the
        # products of the bounds.
        conds = set(conds)
        for v in (x, y):
            if v.lim is not None and v.lim[0] >= 0:
                continue
            c = b.le(0, v.lo)
            if c is False:
                return _UNKNOWN
            if c is not True:
                conds.add(c)
        return Iv(b.mul(x.lo, y.lo), b.mul(x.hi, y.hi), conds)

    def _guarded(self, iv: Iv, lower_bounds, lim) -> Iv:
        """`iv`, valid where each (least, value) has value >= least (side conditions)."""
        conds = set(iv.conds)
        for least, v in lower_bounds:
            if v is None:
                return _UNKNOWN
            c = self.b.le(least, v)
            if c is False:
                return _UNKNOWN
            if c is not True:
                conds.add(c)
        return self._fit(Iv(iv.lo, iv.hi, conds), lim)

    def _min_max(self, e, ch, lim) -> Iv | None:
        """Integer `min(a, b)`, `max(a, b)` (CUDA's, OpenCL's) and `clamp(x, lo, hi)`
        (OpenCL's: min(max(x, lo), hi), which OpenCL defines only where lo <= hi -- a side
        condition). Only the built-ins -- declared outside the user's text (CUDA) or
        declared where used and defined nowhere (OpenCL) -- and only where every argument
        has the call's type, so each compares and returns values unchanged."""
        callee = strip(ch[0]) if ch else None
        if callee is None or callee.kind != self.K.DECL_REF_EXPR or \
                callee.spelling not in ("min", "max", "clamp"):
            return None
        ref = callee.referenced
        if ref is None or ref.get_definition() is not None and self.dialect == "opencl" or \
                self.dialect == "cuda" and not _stand_in(ref):
            return None
        args = ch[1:]
        if len(args) != (3 if callee.spelling == "clamp" else 2) or \
                any(integer_limits(a.type) != lim for a in args):
            return None
        vs = [self.value(a) for a in args]
        if not all(v.known for v in vs):
            return None
        b = self.b
        conds = frozenset().union(*(v.conds for v in vs))
        if callee.spelling == "min":
            return Iv(b.min(vs[0].lo, vs[1].lo), b.min(vs[0].hi, vs[1].hi), conds, lim)
        if callee.spelling == "max":
            return Iv(b.max(vs[0].lo, vs[1].lo), b.max(vs[0].hi, vs[1].hi), conds, lim)
        x, lo, hi = vs
        c = b.le(lo.hi, hi.lo)
        if c is False:
            return None
        conds = conds | ({c} if c is not True else set())
        return Iv(b.min(b.max(x.lo, lo.lo), hi.lo), b.min(b.max(x.hi, lo.hi), hi.hi),
                  conds, lim)

    # -- launch dimensions --------------------------------------------------------------------
    def _dim(self, kind: str, axis: int):
        names = {"block": "blockDim", "grid": "gridDim", "global": "get_global_size",
                 "local": "get_local_size", "groups": "get_num_groups"}
        text = (f"{names[kind]}.{'xyz'[axis]}" if kind in ("block", "grid")
                else f"{names[kind]}({axis})")
        return self.b.fact(LaunchFact(kind, axis=axis, text=text))

    def _builtin_decl(self, ref) -> bool:
        return ref is not None and not self.ps.in_main_file(ref)

    def _cuda_builtin(self, e, ch) -> Iv:
        if self.dialect != "cuda" or len(ch) != 1 or e.spelling not in ("x", "y", "z"):
            return _UNKNOWN
        base = strip(ch[0])
        if base.kind != self.K.DECL_REF_EXPR or base.spelling not in _CUDA_DIMS or \
                not self._builtin_decl(base.referenced):
            return _UNKNOWN
        axis = "xyz".index(e.spelling)
        kind = _CUDA_DIMS[base.spelling]
        dim = self._dim(kind, axis)
        # (what every CUDA launch keeps to: blocks of at most 1024 threads, grids of at
        # most 2**31 - 1 blocks per axis)
        lim = (0, 1024) if kind == "block" else (0, 2 ** 31 - 1)
        if base.spelling.endswith("Dim"):
            return Iv(dim, dim, lim=lim)
        return Iv(0, self.b.sub(dim, 1), lim=lim)

    def _cl_builtin(self, e, ch) -> Iv:
        if self.dialect != "opencl" or len(ch) != 2:
            return _UNKNOWN
        callee = strip(ch[0])
        name = callee.spelling if callee.kind == self.K.DECL_REF_EXPR else ""
        ref = callee.referenced
        # (the parse declares OpenCL's built-ins where they are used: one the program
        # defines itself is not the built-in)
        if name not in _CL_IDS or ref is None or ref.is_definition():
            return _UNKNOWN
        axis = evaluate_int(ch[1])
        if axis not in (0, 1, 2):
            return _UNKNOWN
        dim = self._dim(_CL_IDS[name], axis)
        lim = (0, 2 ** 63 - 1)     # (the backend launches variants only with sizes below)
        if name.endswith("_id"):
            return Iv(0, self.b.sub(dim, 1), lim=lim)
        if name == "get_local_size":          # the last group may be smaller (OpenCL 2)
            return Iv(1, dim, lim=lim)
        return Iv(dim, dim, lim=lim)

def _stand_in(ref) -> bool:
    """Declared by safekern's stand-in for CUDA's headers (cuda_headers.py): CUDA's own
    `min`/`max`, not one of a header the user includes."""
    f = ref.location.file
    return f is not None and os.path.basename(f.name) == PRELUDE_NAME


def kernel_predicates(ps, fn, dialect: str, sites, fields=()) -> object:
    """The launch predicates of one kernel: `sites` are (access, failure code, extent) of its
    checks that a predicate may prove (extent: a constant, ("param", i), or ("field", param,
    offset, element size, name): a struct pointer field, `fields` the (param, offset) of the
    kernel's struct pointer fields in the order of their hidden sizes); each access whose
    predicate is found gets `extra["predicate"]` (its text, for check_report)."""
    analysis = LaunchAnalysis(ps, fn, dialect, fields)
    for a, code, extent in sites:
        pred = analysis.add(code, (a.index_start, a.index_end), extent)
        if pred is not None:
            a.extra["predicate"] = pred.text
    return analysis.result()


__all__ = ["LaunchAnalysis", "kernel_predicates"]
