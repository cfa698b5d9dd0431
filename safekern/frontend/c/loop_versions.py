"""Loop versioning for CUDA C: a loop's affine accesses checked once, before the loop.

The numba front end's idea (frontend/python/versioning.py) for the C rewrite. A counted loop

    for (int k = INIT; k < B; k++) BODY          (or <=, ++k, k += c with a constant c > 0)

whose body cannot store to memory, call anything, leave the function, loop again inside, or
change k or anything B reads, runs one of two copies, chosen once before the loop:

    { long long lo = INIT, hi = B;               -- each evaluated once, with its own checks
      if (the loop is empty || every affine access is in bounds at k = lo and at the last k,
          and every data-dependent access has a non-empty extent)
          FAST                                   -- affine accesses unchecked; the others
                                                    deferred, branch-free (below)
      else
          the loop as the rewrite checks it }    -- exactly the checked semantics

An access is *affine* when its index is a*k + b with a, b loop-invariant (integer literals,
parameters and locals the body does not assign, CUDA's thread and block indices; only +, -, *
reach k, every operation that involves k of the index's own width): its values over the loop lie
between its values at the two ends, and where those are in [0, n) the index computed in the
index's own type equals the exact one, so no iteration leaves the array. Any other checked index
(SpMV's `x[col[j]]`) is *data-dependent*: in the fast copy `__sk_dx` compares it once, without a
branch -- a bad index reads element 0 instead, and the first one is remembered -- and after the
loop a remembered failure is recorded exactly as the check would have (same code, index, size,
thread). Nothing in the body writes memory or can loop for ever (the trip count is fixed before
the loop), so the iterations the fast copy runs after the first failure change nothing anyone
sees; the work-item then leaves as from the check itself.

`version_loops(mod, fn, body, first_edit)` analyses the loops of one function after its walker
(cuda_access.FunctionRewriter) made its edits, reading those edits (each check a
`__sk_ix(` ... `, n, CODE, axis, __sk_fb)` pair) and adding the two texts around each loop it
versions; a loop with any other edit inside, a macro, a cast or anything it does not know is
left as it is. Edit texts hold no newline: the fast copy is written on the loop's first line,
from its tokens (comments dropped).
"""
from __future__ import annotations

import re

from . import edits as E
from . import parse as C

_CHECK_TAIL = re.compile(r"^, (.+), (0x[0-9a-f]+)ULL, (\d+), __sk_fb\)$")
_BUILTIN = re.compile(r"^(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]$")
_INT_TYPES = {"INT": (4, True), "UINT": (4, False), "LONG": (8, True), "ULONG": (8, False),
              "LONGLONG": (8, True), "ULONGLONG": (8, False)}
_STORES = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=")
_DEPTH = 10 ** 6          # the versioning texts enclose every other edit at the loop's ends


class _NoVersion(Exception):
    """This loop is left as it is."""


def _int_type(t):
    """(bytes, signed) of an integer type (its canonical form), or None."""
    return _INT_TYPES.get(t.get_canonical().kind.name)


class _Loop:
    """One candidate loop: its parts, and what its body reads and writes."""

    def __init__(self, ps, cursor):
        self.ps, self.cursor = ps, cursor
        K = C.kinds()
        kids = C.children(cursor)
        if len(kids) != 4:
            raise _NoVersion("a for loop without all of init, condition and increment")
        init, cond, inc, self.body = kids
        # the counter and its start
        if init.kind == K.DECL_STMT:
            decls = C.children(init)
            if len(decls) != 1 or decls[0].kind != K.VAR_DECL:
                raise _NoVersion("init")
            self.var = decls[0]
            values = [c for c in C.children(self.var) if c.kind != K.TYPE_REF]
            if len(values) != 1:
                raise _NoVersion("init")
            self.start = values[0]
        elif init.kind == K.BINARY_OPERATOR and C.binary_op(ps, init) == "=":
            lhs, self.start = C.children(init)
            lhs = C.strip(lhs)
            if lhs.kind != K.DECL_REF_EXPR or lhs.referenced is None or \
                    lhs.referenced.kind != K.VAR_DECL:
                raise _NoVersion("init")
            self.var = lhs.referenced
        else:
            raise _NoVersion("init")
        self.type = _int_type(self.var.type)
        if self.type is None or not self.type[1]:
            raise _NoVersion("a counter that is not a signed integer")
        # k < B, k <= B
        self.op = C.binary_op(ps, cond) if cond.kind == K.BINARY_OPERATOR else ""
        if self.op not in ("<", "<="):
            raise _NoVersion("condition")
        left, self.bound = C.children(cond)
        if not self._is_var(left) or self.bound.type.get_canonical().kind != \
                self.var.type.get_canonical().kind:
            raise _NoVersion("condition")
        # k++, ++k, k += s (s a constant, or loop-invariant: tested positive before the loop)
        self.step = None
        if inc.kind == K.UNARY_OPERATOR:
            if C.unary_op(ps, inc) not in ("++", "post++") or \
                    not self._is_var(C.children(inc)[0]):
                raise _NoVersion("increment")
        elif inc.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and C.binary_op(ps, inc) == "+=":
            target, self.step = C.children(inc)
            if not self._is_var(target) or _int_type(self.step.type) is None:
                raise _NoVersion("increment")
        else:
            raise _NoVersion("increment")
        self.assigned = set()
        self._scan_body()
        if self.step is not None and _degree(ps, self, self.step, None) != 0:
            raise _NoVersion("a step that is not loop-invariant")
        for part in (self.start, self.bound):
            self._pure(part)
        if self.var.hash in self.assigned or any(
                h in self.assigned for h in self._reads(self.bound) | self._reads(self.start)):
            raise _NoVersion("the body changes the counter or the bound")

    def _is_var(self, c) -> bool:
        c = C.strip(c)
        return c.kind == C.kinds().DECL_REF_EXPR and c.referenced is not None and \
            c.referenced == self.var

    def _scan_body(self):
        """No store to memory, no call, no jump out, no inner loop; the locals assigned."""
        K = C.kinds()
        for c, _ in C.walk(self.body):
            k = c.kind
            if k in (K.CALL_EXPR, K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.RETURN_STMT,
                     K.GOTO_STMT, K.INDIRECT_GOTO_STMT, K.LAMBDA_EXPR, K.CXX_THROW_EXPR,
                     K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR) or k.name in ("GCC_ASM_STMT",
                                                                     "MS_ASM_STMT", "ASM_STMT"):
                raise _NoVersion(k.name)
            target = None
            if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and \
                    C.binary_op(self.ps, c) in _STORES:
                target = C.children(c)[0]
            elif k == K.UNARY_OPERATOR and C.unary_op(self.ps, c) in ("++", "--", "post++",
                                                                      "post--"):
                target = C.children(c)[0]
            elif k == K.VAR_DECL:
                self.assigned.add(c.hash)
                if c.storage_class.name == "STATIC" or "__shared__" in self.ps.text(c):
                    raise _NoVersion("a static or shared variable")
            if target is not None:
                t = C.strip(target)
                if t.kind != K.DECL_REF_EXPR or t.referenced is None or \
                        t.referenced.kind != K.VAR_DECL or t.type.kind.name in (
                            "LVALUEREFERENCE", "RVALUEREFERENCE") or \
                        t.referenced.type.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE"):
                    raise _NoVersion("a store to memory")
                self.assigned.add(t.referenced.hash)

    def _pure(self, c):
        K = C.kinds()
        for n, _ in C.walk(c):
            if n.kind in (K.CALL_EXPR, K.COMPOUND_ASSIGNMENT_OPERATOR) or (
                    n.kind == K.BINARY_OPERATOR and C.binary_op(self.ps, n) in _STORES) or (
                    n.kind == K.UNARY_OPERATOR and C.unary_op(self.ps, n) in (
                        "++", "--", "post++", "post--")):
                raise _NoVersion("side effects in the loop's header")

    @staticmethod
    def _reads(c) -> set:
        K = C.kinds()
        return {n.referenced.hash for n, _ in C.walk(c)
                if n.kind == K.DECL_REF_EXPR and n.referenced is not None}


def _degree(ps, loop, c, width):
    """The degree of `c` in the counter (0 or 1; module doc), or None: not affine."""
    K = C.kinds()
    text = " ".join(t[2] for t in ps.tokens_between(*ps.offsets(c)))
    if _BUILTIN.match(text.replace(" ", "")):
        return 0
    if c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        kids = C.children(c)
        if len(kids) != 1:
            return None
        d = _degree(ps, loop, kids[0], width)
        return d if d != 1 or _width(c) == width else None
    if c.kind == K.INTEGER_LITERAL:
        return 0
    if c.kind == K.DECL_REF_EXPR:
        ref = c.referenced
        if ref is None:
            return None
        if ref == loop.var:
            return 1 if _width(c) == width else None
        if ref.kind == K.PARM_DECL or (ref.kind == K.VAR_DECL and
                                      ref.storage_class.name not in ("STATIC", "EXTERN") and
                                      ref.semantic_parent is not None and
                                      ref.semantic_parent.kind in (K.FUNCTION_DECL,
                                                                   K.FUNCTION_TEMPLATE) and
                                      "__shared__" not in ps.text(ref)):
            if ref.hash in loop.assigned or _int_type(ref.type) is None:
                return None
            return 0
        return None
    if c.kind == K.BINARY_OPERATOR:
        op = C.binary_op(ps, c)
        kids = C.children(c)
        if len(kids) != 2:
            return None
        a, b = (_degree(ps, loop, k, width) for k in kids)
        if a is None or b is None:
            return None
        if op in ("+", "-"):
            d = max(a, b)
        elif op == "*":
            d = a + b
        elif op in ("/", "%", "<<", ">>", "&", "|", "^"):
            d = 0 if a == b == 0 else None
        else:
            return None
        if d is None or d > 1 or (d == 1 and _width(c) != width):
            return None
        return d
    if c.kind == K.UNARY_OPERATOR and C.unary_op(ps, c) in ("-", "+"):
        d = _degree(ps, loop, C.children(c)[0], width)
        return d if d != 1 or _width(c) == width else None
    return None


def _width(c):
    t = _int_type(c.type)
    return t[0] if t is not None else None


def _tokens(ps, start, end, *, inserts=(), replaces=(), rename=None) -> str:
    """The text of [start, end) on one line, from its tokens: `inserts` ((offset, key, text))
    placed as apply_edits would, `replaces` ((start, end, text)) instead of their tokens,
    `rename` (name, text): every identifier token `name` not after '.' or '->'."""
    pieces = []
    toks = ps.tokens_between(start, end)
    events = sorted(inserts, key=lambda e: (e[0], e[1]))
    ei = 0
    skip_to = -1
    prev = ""
    for s, e, spelling in toks:
        while ei < len(events) and events[ei][0] <= s:
            pieces.append(events[ei][2])
            ei += 1
        if s < skip_to:
            continue
        hit = next((r for r in replaces if r[0] == s), None)
        if hit is not None:
            pieces.append(hit[2])
            skip_to = hit[1]
            prev = ")"
            continue
        if rename is not None and spelling == rename[0] and prev not in (".", "->"):
            pieces.append(rename[1])
        else:
            pieces.append(spelling)
        prev = spelling
    pieces += [ev[2] for ev in events[ei:]]
    return " ".join(pieces)


def _statement_end(ps, cursor) -> int:
    """Just after a statement: its extent, and a ';' after it (libclang's extent of a
    statement ending in an expression stops before its ';'; after a '}' a ';' is an empty
    statement, harmless inside the versioned block)."""
    _, e = ps.offsets(cursor)
    tok = ps.next_token(e)
    return tok[1] if tok is not None and tok[2] == ";" else e


def version_loops(mod, fn, body, first_edit: int) -> int:
    """Version the counted loops of one function (module doc); how many it versioned."""
    ps = mod.ps
    K = C.kinds()
    if not mod.checks or not mod.eliminate:
        return 0
    done = 0
    for c, _ in C.walk(body):
        if c.kind != K.FOR_STMT:
            continue
        try:
            done += _version(mod, fn, c, first_edit, done)
        except _NoVersion:
            continue
    return done


def _version(mod, fn, cursor, first_edit, n) -> int:
    ps = mod.ps
    loop = _Loop(ps, cursor)
    ls = ps.offsets(cursor)[0]
    le = _statement_end(ps, cursor)
    if any(not (e <= ls or s >= le) for s, e, _ in ps.macro_ranges()) or \
            "#" in ps.slice(ls, le):
        raise _NoVersion("a macro or a directive in the loop")
    bs = ps.offsets(loop.body)[0]
    mine = [e for e in mod.edits[first_edit:] if ls <= e.start < le]
    if any(e.start < ls < e.end or e.start < le < e.end for e in mod.edits):
        raise _NoVersion("an edit across the loop")
    # the checks of the body: (i0, i1) -> (extent, code, axis, before, after)
    opens = {e.start: e for e in mine if e.start >= bs and e.text == "__sk_ix(" and
             e.start == e.end}
    checks, used = {}, set()
    for e in mine:
        if e.start < bs or e.start != e.end:
            continue
        m = _CHECK_TAIL.match(e.text)
        if m is None:
            continue
        access = next((a for a in mod.accesses if a.index_end == e.start and
                       a.index_start in opens and a.extra.get("code") == int(m.group(2), 16)),
                      None)
        if access is None:
            continue
        checks[(access.index_start, access.index_end)] = (m.group(1), m.group(2),
                                                          m.group(3), opens[access.index_start], e)
        used |= {id(opens[access.index_start]), id(e)}
    if any(id(e) not in used for e in mine if e.start >= bs):
        raise _NoVersion("an edit in the body that is not a bounds check")
    if not checks:
        raise _NoVersion("nothing to hoist")
    index_of = {}
    for c, _ in C.walk(loop.body):
        index_of.setdefault(ps.offsets(c), c)
    affine, dependent = [], []
    for (i0, i1), check in checks.items():
        idx = index_of.get((i0, i1))
        width = _width(idx) if idx is not None else None
        d = _degree(ps, loop, idx, width) if width is not None else None
        (affine if d is not None else dependent).append((i0, i1, idx, check))
    if not affine:
        raise _NoVersion("no affine access")
    v = f"{n}_{ls}"
    lo, hi = f"__sk_lo{v}", f"__sk_hi{v}"
    last = hi if loop.op == "<=" else f"({hi} - 1)"
    header_inserts = [(e.start, e.key, e.text) for e in mine if e.start < bs]
    start_s, start_e = ps.offsets(loop.start)
    bound_s, bound_e = ps.offsets(loop.bound)
    init_text = _tokens(ps, start_s, start_e, inserts=[i for i in header_inserts
                                                         if start_s <= i[0] <= start_e])
    bound_text = _tokens(ps, bound_s, bound_e, inserts=[i for i in header_inserts
                                                         if bound_s <= i[0] <= bound_e])
    conds = [f"{lo} {'>' if loop.op == '<=' else '>='} {hi}"]
    # the step is positive and k never passes its type's largest value (the loop's values
    # are those between lo and last, which the tests below cover)
    step = "1LL" if loop.step is None else \
        f"(long long)({_tokens(ps, *ps.offsets(loop.step))})"
    kmax = (1 << (8 * loop.type[0] - 1)) - 1
    tests = [f"{step} > 0", f"{last} <= {kmax}LL - {step}"]
    for i0, i1, idx, (extent, code, axis, _, _) in affine:
        size, signed = _int_type(idx.type)
        top = (1 << (8 * size - 1)) - 1 if signed else (1 << (8 * size)) - 1
        name = loop.var.spelling
        at = [_tokens(ps, i0, i1, rename=(name, f"({x})")) for x in (lo, last)]
        tests.append(f"__sk_vok((long long)({at[0]}), (long long)({at[1]}), ({extent}), "
                     f"{top}LL)")
    for _, _, _, (extent, _, _, _, _) in dependent:
        tests.append(f"({extent}) != 0")
    cond = f"{conds[0]} || ({' && '.join(tests)})"
    state = f"__sk_vst{v}"
    inserts, report = [], []
    for i0, i1, idx, (extent, code, axis, before, after) in dependent:
        inserts.append((before.start, before.key, "__sk_dx("))
        inserts.append((after.start, after.key, f", {extent}, {code}ULL, &{state})"))
        unsigned = 0 if _int_type(idx.type)[1] else 1
        # after the loop: the first failure, recorded as the site's own check records it
        report.append(f"if ({state}.code == {code}ULL) __sk_fail(__sk_fb, {code}ULL, "
                      f"{state}.index, {extent}, {axis}, {unsigned});")
    fast = _tokens(ps, ls, le, inserts=inserts,
                   replaces=[(start_s, start_e, lo), (bound_s, bound_e, hi)])
    declare = f"__sk_dx_state {state} = {{0, 0}}; " if dependent else ""
    # (the start as the counter holds it: converted to its type first)
    ctype = loop.var.type.get_canonical().spelling
    pre = (f"{{ long long {lo} = (long long)({ctype})({init_text}); long long {hi} = "
           f"(long long)({bound_text}); if ({cond}) {{ {declare}{fast} {' else '.join(report)}"
           " } else ")
    mod.edits.append(E.insert_before(ls, pre, -_DEPTH))
    mod.edits.append(E.insert_after(le, " }", -_DEPTH))
    return 1


__all__ = ["version_loops", "PRELUDE"]


#: The device helpers of versioned loops (after the prelude's __sk_fail): the test before the
#: loop, and the branch-free check of a data-dependent index (module doc).
PRELUDE = r"""
#pragma nv_diag_suppress 177
struct __sk_dx_state { unsigned long long code; long long index; };
static __device__ __forceinline__ bool __sk_vok(long long a, long long b, long long n,
                                                long long top) {
  return n < 0 || (a >= 0 && b >= 0 && a < n && b < n && a <= top && b <= top);
}
// (the size, axis and signedness of the failing access are its site's: after the loop the
// code says which)
template <typename I>
static __device__ __forceinline__ long long __sk_dx(I i, long long n, unsigned long long code,
                                                    __sk_dx_state* s) {
  long long v = (long long)i;
  bool bad = (unsigned long long)v >= (unsigned long long)n && n >= 0;
  bool first = bad && s->code == 0ULL;
  s->index = first ? v : s->index;
  s->code = first ? code : s->code;
  return bad ? 0LL : v;
}
#pragma nv_diag_default 177
"""
