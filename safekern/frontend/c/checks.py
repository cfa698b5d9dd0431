"""The OpenCL C hooks of the C access walk (walker.py; analysis only, opencl_edits.py
rewrites).

    facts = analyse_function(ps, fn, dialect, is_kernel=..., helpers={...})   # analysis only
    edits = opencl_edits.access_edits(ps, facts, codes)                       # rewrite only

What differs from CUDA C (cuda_access.py): pointers carry address spaces (`__global`,
`__local`, ... in the byte-offset casts) and every parameter pointer gets a hidden size;
vectors' components are an axis; built-ins such as vloadN access N elements at an offset;
a helper's hidden arguments are the byte offset and the size of the caller's memory.

What an access is checked against (its access_check.Check, made by access_check's
constructors as for CUDA C; this walker decides what the access is and whether it can be
checked):
- arrays of constant size (private, __local/__shared__, program scope, struct members) and
  vector components: the index of each axis against the axis's extent;
- pointer parameters: a hidden size in bytes (`Root.size`); `p[i]` / `*(p + i)` on the
  parameter itself check `i` against the element count, other pointers derived in the function
  from the parameter (`row = a + r * n`, `&a[k]`, casts, `p++`) check the byte offset from the
  parameter against its size;
- built-ins that access memory through a pointer (atomics, vloadN/vstoreN, math out-params):
  the elements they touch.

The checks the edits generate: opencl_edits.py.
"""
from __future__ import annotations

from ...report import Status
from .access_check import axis_check, constant_extent, element_check, index_flags, pointer_check
from .model import Access, FunctionFacts, HelperCall, Root
from .param_info import params_of
from .parse import (ParsedSource, binary_op, call_args, called_name, children, evaluate_int,
                    function_body, kinds, strip, unary_op, walk)
from .provenance import Provenance
from .ranges import LoopRanges
from .walker import AccessWalker

LONG_MAX = "0x7fffffffffffffffL"


class _Unknown(Exception):
    """A pointer the rewriter cannot tie to a size; the message is the reason."""


class OpenCLWalker(AccessWalker):
    """The walk of one OpenCL C function (walker.AccessWalker) with OpenCL's hooks."""

    def __init__(self, ps: ParsedSource, fn, dialect, is_kernel: bool, helpers: dict,
                 eliminate: bool = True):
        super().__init__(ps, fn.spelling)
        self.fn = fn
        self.dialect = dialect
        self.is_kernel = is_kernel
        self.helpers = helpers          # name -> list[ParamInfo] of rewritten helpers
        self.eliminate = eliminate      # False: no access is 'safe' (SAFEKERN_ELIMINATE=0)
        self.params = []                # param_info.ParamInfo (setup)
        self.ranges = None              # ranges.LoopRanges of the body (setup)
        self.calls: list[HelperCall] = []
        self.barriers = []
        self._declared = None

    # -- what pointers point into, what loop variables range over ---------------------------------------
    def setup(self, body):
        self.params = params_of(self.fn, self.dialect)
        self.prov = Provenance(self.ps, body, [p.cursor for p in self.params],
                               [p.index for p in self.params if p.is_pointer], self.dialect,
                               kernel=self.is_kernel)
        for p in self.params:
            p.moved = p.is_pointer and p.index in self.prov.moved
        self.ranges = LoopRanges(self.ps, body)

    def result(self) -> FunctionFacts:
        moved = [p for p in self.params if p.is_pointer and p.moved]
        return FunctionFacts(self.fn.spelling, self.fn, self.is_kernel, self.params,
                             self.accesses, self.calls, moved, self.barriers,
                             self.prov.param_of)

    # -- pointers -----------------------------------------------------------------------
    def pointer_base(self, expr):
        """(Root, direct) of a pointer expression; direct: written as its root, the unmoved
        parameter itself (walker.written_as_root). Raises _Unknown (with the reason) where
        provenance.py cannot tell the root."""
        root = self.root(expr)
        if isinstance(root, str):
            raise _Unknown(root)
        return root, self.written_as_root(expr, root)

    # -- the hooks -----------------------------------------------------------------------
    def on_subscript(self, c, depth, ctx) -> bool:
        self._subscript(c, self.parents())
        return False

    def on_unary(self, c, depth, ctx) -> bool:
        if unary_op(self.ps, c) == "*":
            self._deref(c, children(c)[0], "deref")
        return False

    def on_member(self, c, depth, ctx) -> bool:
        ch = children(c)
        if ch and self._is_arrow(c, ch[0]):
            self._deref(c, ch[0], "deref")
        return False

    def on_call(self, c, depth, ctx) -> bool:
        self._call(c, self.parents())
        return False

    def _is_arrow(self, member, base) -> bool:
        tok = self.ps.next_token(base.extent.end.offset)
        return tok is not None and tok[2] == "->" and _is_pointer(base)

    def _new(self, cursor, kind, **kw) -> Access:
        s, e = self.ps.offsets(cursor)
        return self.record(kind, kw.pop("status", Status.CHECKED), kw.pop("reason", ""), s, e,
                           **kw)

    def _macro_reason(self, *positions):
        name = self.ps.macro_at(*positions)
        return f"written inside the expansion of macro '{name}'" if name else ""

    def _address_only(self, parents) -> bool:
        """A subscript under '&' forms an address; it is an access only for built-ins."""
        K = self.K
        skip = (K.PAREN_EXPR, K.UNEXPOSED_EXPR)
        i = len(parents) - 1
        while i >= 0 and parents[i].kind in skip:
            i -= 1
        if i < 0 or not (parents[i].kind == K.UNARY_OPERATOR
                         and unary_op(self.ps, parents[i]) == "&"):
            return False
        # &x[i] passed to a built-in that accesses one element: the subscript is the access.
        j = i - 1
        while j >= 0 and parents[j].kind in skip + (K.CSTYLE_CAST_EXPR,):
            j -= 1
        if j >= 0 and parents[j].kind == K.CALL_EXPR:
            name = called_name(parents[j])
            spec = self.dialect.pointer_builtin(name) if name else None
            if isinstance(spec, tuple) and spec[1] == 1:
                return False
        return True

    def _subscript(self, c, parents):
        K = self.K
        lhs, rhs = children(c)
        if self._address_only(parents):
            return
        base_expr, index = lhs, rhs
        sl = strip(lhs)
        if not (_is_pointer(lhs) or _is_array(sl) or _is_vector(sl)):
            if _is_pointer(rhs):
                self._new(c, "subscript", status=Status.UNCHECKED,
                          reason="reversed subscript (index[pointer])", array=self.ps.text(rhs))
            return
        b = strip(base_expr)
        i_s, i_e = self.ps.offsets(index)
        wide = {"unsigned": index_flags(index)["unsigned"]}   # failures.UNSIGNED
        reason = self._macro_reason(i_s, i_e)
        if not reason and (i_e <= i_s or self.ps.offsets(base_expr)[1] > i_s):
            name = self.ps.macro_containing(*self.ps.offsets(c))
            reason = (f"written inside the expansion of macro '{name}'" if name
                      else "written inside a macro expansion")
        if _is_array(b) or _is_vector(b):
            extent = constant_extent(b.type)
            root, axis = b, 0
            while strip(root).kind == K.ARRAY_SUBSCRIPT_EXPR and _is_array(
                    strip(children(strip(root))[0])):
                root = strip(children(strip(root))[0])
                axis += 1
            root = strip(root)
            name = self.ps.text(root)
            if _is_vector(b) and not _is_array(b):
                name = self.ps.text(b)
            acc = self._new(c, "vector" if _is_vector(b) and not _is_array(b) else "subscript",
                            index_start=i_s, index_end=i_e, array=name, axis=axis,
                            extent=extent, extra=wide)
            if reason:
                acc.status, acc.reason = Status.UNCHECKED, reason
                return
            rng = self.ranges.index_range(index, i_s) if self.eliminate else None
            if rng is not None and 0 <= rng[0] and rng[1] < extent:
                acc.status = Status.ELIMINATED
                acc.reason = ("constant index" if rng[0] == rng[1] and evaluate_int(index)
                              is not None else f"loop index in [{rng[0]}, {rng[1]}]")
                return
            acc.check = axis_check(index, (i_s, i_e), extent, axis, self.depth, self.ps)
            return
        # A pointer: the parameter itself, or a pointer derived from one.
        acc = self._new(c, "subscript", index_start=i_s, index_end=i_e,
                        array=self.ps.text(b), axis=0, extra=wide)
        if reason:
            acc.status, acc.reason = Status.UNCHECKED, reason
            return
        try:
            base, direct = self.pointer_base(base_expr)
        except _Unknown as err:
            acc.status, acc.reason = Status.UNCHECKED, str(err)
            return
        if self._tie(acc, base, direct, base_expr):
            self._offset_check(acc, index)

    def _tie(self, acc: Access, base: Root, direct: bool, pointer_expr) -> bool:
        """Tie a pointer access to the memory it reaches; False: left unchecked (the
        reason recorded)."""
        acc.base = base
        acc.array = base.name
        if not direct or base.kind == "array":
            p_s, p_e = self.ps.offsets(pointer_expr)
            if self.ps.macro_at(p_s, p_e):
                acc.status, acc.reason = Status.UNCHECKED, self._macro_reason(p_s, p_e)
                return False
            if not _pure(self.ps, pointer_expr, self.dialect):
                acc.status = Status.UNCHECKED
                acc.reason = "pointer expression has side effects (evaluated twice to check it)"
                return False
            acc.pointer_start, acc.pointer_end = p_s, p_e
        if base.kind == "array":
            acc.axis = 0
        return True

    def _offset_check(self, acc: Access, index, elems=None, value=None):
        """The check of a pointer plus an index (access_check.pointer_check): the pointer
        is its root itself where `_tie` recorded no pointer expression. `index`: the index's
        cursor, whose type sets the check's flags (None: not set); `value`: the index's cursor
        where it sets none, for access_check.may_wrap alone."""
        pointer = None if acc.pointer_start < 0 else (acc.pointer_start, acc.pointer_end)
        acc.check = pointer_check(acc.base, (acc.index_start, acc.index_end), self.depth,
                                  index=index, pointer=pointer, itself=pointer is None,
                                  elems=elems, negate=acc.negate, ps=self.ps,
                                  value=value)

    def _element_check(self, acc: Access):
        """The check of a pointer used as it is: one element inside its root."""
        acc.check = element_check((acc.pointer_start, acc.pointer_end), acc.base, self.depth)

    def _deref(self, c, operand, kind):
        """*(p + k), *p, p->x: check the pointer operand."""
        K = self.K
        o = strip(operand)
        acc = self._new(c, kind, array=self.ps.text(o))
        try:
            if o.kind == K.BINARY_OPERATOR and binary_op(self.ps, o) in ("+", "-") and \
                    (_is_pointer(children(o)[0]) or binary_op(self.ps, o) == "+"):
                a, b = children(o)
                ptr, k = (a, b) if _is_pointer(a) else (b, a)
                base, direct = self.pointer_base(ptr)
                acc.negate = binary_op(self.ps, o) == "-"
                acc.index_start, acc.index_end = self.ps.offsets(k)
                reason = self._macro_reason(acc.index_start, acc.index_end)
                if reason or acc.index_end <= acc.index_start:
                    acc.status, acc.reason = Status.UNCHECKED, reason or "inside a macro expansion"
                    return
                if self._tie(acc, base, direct and not acc.negate, ptr):
                    # (the index's type sets no flag here: `*(a + i)` on a parameter is
                    # checked by `__sk_ix`, as before the checks were made in one place)
                    self._offset_check(acc, None, value=k)
                return
            base, _ = self.pointer_base(o)
        except _Unknown as err:
            acc.status, acc.reason = Status.UNCHECKED, str(err)
            return
        # No offset operand: wrap the pointer itself as (P + check(0)).
        if self._tie(acc, base, False, o):
            self._element_check(acc)

    def _call(self, c, parents):
        K = self.K
        name = called_name(c)
        args = call_args(c)
        if name is None:
            return
        if name in self.dialect.barrier_functions:
            self.barriers.append(c)
            return
        if name in self.helpers:
            self._helper_call(c, name, args)
            return
        if name in self._user_functions():
            return   # kernels called as functions: rejected by the dialect's rewriter
        spec = self.dialect.pointer_builtin(name)
        if spec == "skip":
            return
        if spec is None:
            for a in args:
                if _is_pointer(a):
                    self._new(a, "argument", status=Status.UNCHECKED, array=self.ps.text(strip(a)),
                              reason=f"pointer passed to '{name}', which safekern does not "
                                     "check")
            return
        arg_i, elems, offset_i = spec
        if arg_i >= len(args):
            return
        ptr = args[arg_i]
        p = strip(ptr)
        while p.kind == K.CSTYLE_CAST_EXPR:
            p = strip(children(p)[-1])
        if elems == 1 and p.kind == K.UNARY_OPERATOR and unary_op(self.ps, p) == "&" and \
                strip(children(p)[0]).kind == K.ARRAY_SUBSCRIPT_EXPR:
            return   # the subscript inside is checked as the access (see _address_only)
        acc = self._new(c, "builtin", array=self.ps.text(p), builtin=name, elems=elems)
        try:
            base, direct = self.pointer_base(ptr)
        except _Unknown as err:
            acc.status, acc.reason = Status.UNCHECKED, str(err)
            return
        if offset_i is not None and offset_i < len(args):
            acc.index_start, acc.index_end = self.ps.offsets(args[offset_i])
            reason = self._macro_reason(acc.index_start, acc.index_end)
            if reason:
                acc.status, acc.reason = Status.UNCHECKED, reason
                return
            if self._tie(acc, base, False, ptr):
                if direct:
                    acc.pointer_start = acc.pointer_end = -1
                self._offset_check(acc, args[offset_i], elems=elems)
        elif self._tie(acc, base, False, ptr):
            self._element_check(acc)

    def _user_functions(self) -> set:
        if self._declared is None:
            K = self.K
            self._declared = {c.spelling for c in self.ps.main_top()
                              if c.kind == K.FUNCTION_DECL}
        return self._declared

    def _helper_call(self, c, name, args):
        hparams = self.helpers[name]
        s, e = self.ps.offsets(c)
        toks = self.ps.tokens_between(s, e)
        if not toks or toks[-1][2] != ")" or self.ps.macro_at(toks[-1][0]):
            raise self.ps.error(f"call of helper '{name}' written through a macro: safekern "
                                "cannot pass its hidden arguments", s, e,
                                kernel=self.fn.spelling)
        call = HelperCall(c, name, toks[-1][0], len(args))
        for p, a in zip(hparams, args):
            if not p.is_pointer:
                continue
            try:
                base, direct = self.pointer_base(a)
                if not _pure(self.ps, a, self.dialect) and not direct:
                    raise _Unknown("pointer argument has side effects")
                call.args.append((base, None if direct else self.ps.offsets(a)))
            except _Unknown as err:
                self._new(a, "argument", status=Status.UNCHECKED, array=self.ps.text(strip(a)),
                          reason=f"argument '{p.name}' of '{name}': {err}; accesses through "
                                 "it are not checked")
                call.args.append(None)
        self.calls.append(call)


def analyse_function(ps: ParsedSource, fn, dialect, *, is_kernel: bool,
                     helpers: dict, eliminate: bool = True) -> FunctionFacts:
    """The accesses, helper calls and barriers of one function definition (no edits).
    `eliminate=False`: accesses proven in bounds are checked all the same. An unexpected
    exception names the function and the line of the node being analysed."""
    return OpenCLWalker(ps, fn, dialect, is_kernel, helpers, eliminate).walk(
        function_body(fn), fn.location.offset)


def find_accesses(ps: ParsedSource, fn, dialect, *, is_kernel: bool = True,
                  helpers=None) -> list:
    """Every memory access of one function definition, classified."""
    return analyse_function(ps, fn, dialect, is_kernel=is_kernel,
                            helpers=helpers or {}).accesses


# -- type and purity helpers ----------------------------------------------------------------

def _canon_kind(c) -> str:
    return c.type.get_canonical().kind.name


def _is_pointer(c) -> bool:
    return _canon_kind(c) == "POINTER"


def _is_array(c) -> bool:
    return _canon_kind(c) == "CONSTANTARRAY"


def _is_vector(c) -> bool:
    return _canon_kind(c) in ("VECTOR", "EXTVECTOR")


def _pure(ps: ParsedSource, expr, dialect) -> bool:
    """No side effects: safe to evaluate twice."""
    K = kinds()
    for c, _ in walk(expr):
        if c.kind in (K.COMPOUND_ASSIGNMENT_OPERATOR,):
            return False
        if c.kind == K.BINARY_OPERATOR and binary_op(ps, c) == "=":
            return False
        if c.kind == K.UNARY_OPERATOR and unary_op(ps, c) in ("++", "--", "post++", "post--"):
            return False
        if c.kind == K.CALL_EXPR and called_name(c) not in dialect.pure_builtins:
            return False
    return True


def tokens_text(ps: ParsedSource, start: int, end: int) -> str:
    """Source text rebuilt from tokens: no comments, no newlines."""
    return " ".join(t[2] for t in ps.tokens_between(start, end))


def offset_expr(ps: ParsedSource, base: Root, pointer) -> str:
    """C expression: byte offset of the pointer at byte range `pointer` (None: the base
    itself) within base's memory."""
    if pointer is None:
        return base.offset if base.offset != "0" else "0L"
    return offset_of(base, tokens_text(ps, *pointer))


def offset_of(base: Root, pointer_text: str) -> str:
    space = f"{base.address_space} " if base.address_space else ""
    diff = (f"(long)((const {space}char *)({pointer_text}) - "
            f"(const {space}char *)({base.base}))")
    return diff if base.offset == "0" else f"({base.offset} + {diff})"


__all__ = ["OpenCLWalker", "analyse_function", "find_accesses", "FunctionFacts", "HelperCall", "LONG_MAX",
           "offset_expr", "offset_of", "tokens_text"]
