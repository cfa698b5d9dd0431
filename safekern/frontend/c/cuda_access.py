"""The CUDA C hooks of the C access walk (walker.py; analysis only: cuda_edits.py writes the
edits, loop_versions.py hoists the index checks of loops).

What differs from OpenCL C (checks.py): plain pointers (a kernel's pointer parameters get a
hidden size, a `__device__` function's a hidden base and size from its caller), struct
pointer fields of a kernel's by-value struct parameters (struct_fields.py), templates
(template-dependent subscripts and dereferences, `operator[]`, `operator*`), lambdas, inline
assembly, asserts and divisions found in the same walk (safety.py); the calls -- barriers,
atomics, the source's own device functions with their call chains, device-side launches,
arrays handed to functions outside the source -- are cuda_calls.py's. Every access is recorded
as checked (with its access_check.Check, made by access_check's constructors as for OpenCL C),
eliminated (proven in bounds), or unchecked with the reason.
"""
from __future__ import annotations

import dataclasses

from ... import call_chains
from ...report import Status
from . import parse as C
from .access_check import (axis_check, constant_extent, counted_params, element_check,
                           pointer_check)
from .cuda_calls import CallHooks
from .cuda_dialect import BACKEND, DIALECT, _ASM_BARRIER
from .model import FunctionFacts, Unknown
from .provenance import (Provenance, array_type, is_array_type, is_pointer_type, operator_call,
                         split_subscript, type_kind)
from .safety import SafetyRewriter, division_operands
from .struct_fields import StructFields
from .walker import AccessWalker


class CudaWalker(CallHooks, AccessWalker):
    """The walk of one CUDA C function (walker.AccessWalker) with CUDA's hooks; `walk`
    returns its records as model.FunctionFacts. The asserts and divisions go to safety.py's
    SafetyRewriter (`safety`), which makes their edits."""

    def __init__(self, mod, fn, body):
        # mod: the cuda_rewrite.ModuleRewriter (what the module knows: its functions, the
        # options); fn: its cuda_rewrite.Function for this definition
        super().__init__(mod.ps, fn.name)
        self.mod = mod
        self.fn = fn
        self.body = body
        self.fields = None                  # struct_fields.StructFields (setup)
        self.failure_sites: list = []       # of the checked accesses and the call sites
        #: the barriers to replace (cuda_calls.py): ("call", start, end, new name) or
        #: ("group", start, object end, end, depth) for cooperative groups' block.sync()
        self.barrier_sites: list = []
        self.hidden_args: list = []         # model.HelperCall: calls of own functions
        self.callees: set = set()           # the source's functions called (Function)
        self.checked = fn.rewritable
        self.uncheck_reason = "" if fn.rewritable else fn.why
        self.safety = None                  # asserts and divisions (setup)
        self.constexpr = False

    def setup(self, body):
        fn, mod = self.fn, self.mod
        # what pointers point into; the parameters that get a hidden size have a root, and
        # so do a kernel's by-value struct parameters' pointer fields (struct_fields.py)
        self.fields = StructFields(mod.ps, body, fn.params, kernel=fn.kernel)
        self.prov = Provenance(mod.ps, body, fn.params,
                               [i for i, p in enumerate(fn.params)
                                if is_pointer_type(p.type) or is_array_type(p.type)],
                               DIALECT, kernel=fn.kernel, fields=self.fields)
        # asserts and divisions (safety.py); a constexpr function may run at compile time,
        # where no check can
        spelling = mod.spelling if fn.kernel else dataclasses.replace(
            mod.spelling, code_literal=call_chains.check_code)
        self.safety = SafetyRewriter(mod.ps, fn.name, spelling, asserts=mod.kernel_asserts,
                                     ndebug_from=mod.ndebug_from)
        start = mod.ps.offsets(fn.cursor)[0]
        self.constexpr = "constexpr" in [
            t[2] for t in mod.ps.tokens_between(start, fn.cursor.location.offset)]

    def result(self) -> FunctionFacts:
        fn = self.fn
        return FunctionFacts(fn.name, fn.cursor, fn.kernel, fn.params, self.accesses,
                             self.hidden_args, self.prov.originals, self.barrier_sites,
                             self.prov.param_of, failure_sites=self.failure_sites,
                             callees=self.callees,
                             count_params=counted_params(a.check for a in self.accesses),
                             fields=self.fields.used, safety=self.safety)

    def _safety_ctx(self, ctx) -> str:
        """Why an assert or division here cannot record a failure ("" when it can)."""
        if self.constexpr:
            return "inside a constexpr function, which may run at compile time"
        return self._unchecked_ctx(ctx)

    # -- the hooks ---------------------------------------------------------------------------
    def handlers(self) -> dict:
        K = self.K
        out = {K.LAMBDA_EXPR: self._lambda, K.BINARY_OPERATOR: self._division,
               K.COMPOUND_ASSIGNMENT_OPERATOR: self._division}
        for name in ("ASM_STMT", "GCC_ASM_STMT", "MS_ASM_STMT"):
            if hasattr(K, name):
                out[getattr(K, name)] = self._asm
        return out

    def on_subscript(self, c, depth, ctx) -> bool:
        self.subscript(c, depth, ctx, access=True)
        return True

    def on_unary(self, c, depth, ctx) -> bool:
        op = self._unary(c)
        kids = C.children(c)
        if op == "?" and kids:
            s, e = self.ps.offsets(c)
            self._record("deref", Status.UNCHECKED, "inside a macro expansion", s, e,
                         array=self.ps.text(c))
        if op == "*" and kids:
            self.deref(c, kids[0], depth, ctx)
            return True
        if op == "&" and kids:
            inner = C.strip(kids[0])
            if inner.kind == self.K.ARRAY_SUBSCRIPT_EXPR:
                self.subscript(inner, depth + 1, ctx, access=False)
                return True
        return False

    def on_member(self, c, depth, ctx) -> bool:
        self.member(c, depth, ctx)
        return True

    def on_call(self, c, depth, ctx) -> bool:
        K = self.K
        opcall = operator_call(c)
        if opcall is not None and len(opcall[1]) == 1 and opcall[0] in ("&", "*"):
            operand = opcall[1][0]
            if opcall[0] == "*":
                self.deref(c, operand, depth, ctx)
                return True
            inner = C.strip(operand)
            if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                self.subscript(inner, depth + 1, ctx, access=False)
            else:
                self.visit(operand, depth + 1, ctx)
            return True
        if opcall is not None:
            if opcall[0] in ("/", "%", "/=", "%=") and len(opcall[1]) == 2:
                # a division of template-dependent operands
                self.safety.division(c, *opcall[1], opcall[0], depth,
                                     unusable=self._safety_ctx(ctx))
            if opcall[0] == "[]" and opcall[1]:
                s, e = self.ps.offsets(c)
                self._record("subscript", Status.UNCHECKED,
                             "operator[] of a class (e.g. CuPy's CArray): its own code "
                             "decides", s, e, array=self.ps.text(opcall[1][0]))
            for ch in opcall[1]:
                self.visit(ch, depth + 1, ctx)
            return True
        self.call(c, depth, ctx)
        return True

    def _division(self, c, depth, ctx) -> bool:
        operands = division_operands(self.ps, c)
        if operands is not None:
            self.safety.division(c, *operands, depth, unusable=self._safety_ctx(ctx))
        return False

    def _asm(self, c, depth, ctx) -> bool:
        if _ASM_BARRIER.search(self.ps.text(c)):
            raise self._reject(c, "a barrier in inline PTX cannot be made barrier-safe "
                               "(a failing thread could not release it); use "
                               "__syncthreads()")
        return False

    def _unary(self, c) -> str:
        """The operator of a UNARY_OPERATOR; inside a macro expansion (no tokens to read) a
        dereference is told by its types, and "?" means one that cannot be edited."""
        op = C.unary_op(self.ps, c)
        kids = C.children(c)
        if op or not kids:
            return op
        operand_t = C.strip(kids[0]).type
        if is_pointer_type(operand_t) or is_array_type(operand_t):
            pointee = operand_t.get_pointee() if is_pointer_type(operand_t) else None
            if pointee is not None and pointee.get_canonical().spelling.replace(
                    "const ", "") == c.type.get_canonical().spelling.replace("const ", ""):
                return "?"
        return ""

    def _lambda(self, c, depth, ctx) -> bool:
        s, _ = self.ps.offsets(c)
        toks = self.ps.tokens_between(s, s + 64)
        default = len(toks) >= 2 and toks[0][2] == "[" and toks[1][2] in ("=", "&") and \
            len(toks) >= 3 and toks[2][2] in ("]", ",")
        inner = dict(ctx)
        if not default:
            inner["unchecked"] = ("inside a lambda without a capture default ([=] or [&]), "
                                  "which cannot see safekern's sizes")
        for ch in C.kids(c):
            self.visit(ch, depth + 1, inner)
        return True

    def _record(self, kind, status, reason, start, end, *, array="", axis=None, index=None,
                extent=None, check=None):
        """A found access; a checked one (`check`: its access_check.Check) gets its failure
        code, and is left out where a launch variant assumes it (launch.py)."""
        a = self.record(kind, status, reason, start, end,
                        index_start=index[0] if index else -1,
                        index_end=index[1] if index else -1, array=array, axis=axis,
                        extent=extent)
        a.check = check
        a.extra["filename"], a.extra["lineno"] = a.place(self.ps)[:2]
        if status == Status.CHECKED:
            site = a.failure_site(self.ps, BACKEND)
            a.extra["code"] = site.code
            if check.launch_extent is not None and site.code in self.mod.assume:
                a.status, a.reason = Status.ELIMINATED, "proven at launch (launch variant)"
            if a.status == Status.CHECKED:
                self.failure_sites.append(site)
        return a

    def _editable(self, *offsets) -> bool:
        return self.ps.macro_at(*offsets) is None

    def _wrappable(self, kind: str, p0: int, p1: int) -> bool:
        """The pointer expression p0..p1 is written out in the user's text, next to the
        operator that uses it (not produced by a macro that expands to the whole access)."""
        before, after = self.ps.prev_token(p0), self.ps.next_token(p1)
        if p1 <= p0 or before is None or after is None or not self._editable(p0, p1):
            return False
        if kind == "deref":
            return before[2] == "*" and before[1] <= p0
        if kind == "arrow":
            return after[2] == "->" and after[0] >= p1
        return before[2] in ("(", ",") and after[2] in (",", ")")

    def _bracketed(self, i0: int, i1: int) -> bool:
        """The index i0..i1 is written between '[' and ']' in the user's text (not produced
        by a macro that expands to the whole subscript)."""
        before, after = self.ps.prev_token(i0), self.ps.next_token(i1)
        return (i1 > i0 and before is not None and before[2] == "[" and after is not None and
                after[2] == "]" and self._editable(i0, i1, before[0], after[0]))

    def _unchecked_ctx(self, ctx):
        return ctx.get("unchecked") or (self.uncheck_reason if not self.checked else "")

    def subscript(self, c, depth, ctx, access: bool):
        base, index = split_subscript(c)
        s, e = self.ps.offsets(c)
        if base is None:
            if access:
                self._record("subscript", Status.UNCHECKED,
                             "the subscripted expression's type is not known (template-"
                             "dependent or not a pointer)", s, e, array=self.ps.text(c))
            for ch in C.kids(c):
                self.visit(ch, depth + 1, ctx)
            return
        b = C.strip(base)
        if is_array_type(b.type) or (b.kind == self.K.ARRAY_SUBSCRIPT_EXPR and
                                      is_array_type(b.type)):
            self._array_subscript(c, base, index, depth, ctx, access)
            return
        if access:
            self._pointer_subscript(c, base, index, depth, ctx)
        else:
            for ch in (base, index):
                self.visit(ch, depth + 1, ctx)

    def _array_axes(self, c):
        """[(subscript, index cursor)] outermost first, and the array expression below."""
        chain = []
        node = c
        while True:
            base, index = split_subscript(node)
            if base is None:
                return chain, None
            chain.append((node, index))
            b = C.strip(base)
            if b.kind == self.K.ARRAY_SUBSCRIPT_EXPR and is_array_type(b.type):
                node = b
                continue
            return chain, base

    def _array_subscript(self, c, base, index, depth, ctx, access):
        K = self.K
        chain, arr = self._array_axes(c)
        b = C.strip(arr)
        levels = len(chain)
        # Visit the array expression's own children (e.g. accesses inside a member base).
        if b.kind != K.DECL_REF_EXPR:
            self.visit(arr, depth + levels, ctx)
        root = self.prov.root_of(arr, c.extent.start.offset) if b.kind == K.DECL_REF_EXPR else None
        name = b.spelling if b.kind == K.DECL_REF_EXPR else self.ps.text(arr)
        for axis, (sub, idx) in enumerate(reversed(chain)):
            # The type of the expression being subscripted at this axis.
            sub_base, _ = split_subscript(sub)
            arr_t = array_type(C.strip(sub_base).type)
            if access:
                self._check_axis(sub, idx, axis, arr_t, name, root, b, depth + levels - axis,
                                 ctx)
            self.visit(idx, depth + levels - axis + 1, ctx)

    def _extent_expr(self, arr_t, axis, name, root, b):
        """A C expression for the extent of `axis`, and its constant value if known."""
        size = constant_extent(arr_t) if type_kind(arr_t) == "CONSTANTARRAY" else None
        if size is not None and size >= 0:
            return str(size), size
        if root is not None and not isinstance(root, Unknown) and root.kind == "extern" and \
                axis == 0:
            return f"(__sk_dynsmem() / (long long)sizeof({name}[0]))", None
        if type_kind(arr_t) == "DEPENDENTSIZEDARRAY" and b.kind == self.K.DECL_REF_EXPR:
            outer = name + "[0]" * axis
            return f"(long long)(sizeof({outer}) / sizeof({outer}[0]))", None
        return None, None

    def _check_axis(self, sub, idx, axis, arr_t, name, root, b, depth, ctx):
        s, e = self.ps.offsets(sub)
        i0, i1 = self.ps.offsets(idx)
        reason = self._unchecked_ctx(ctx)
        if reason:
            self._record("subscript", Status.UNCHECKED, reason, s, e, array=name, axis=axis,
                         index=(i0, i1))
            return
        if isinstance(root, Unknown):
            self._record("subscript", Status.UNCHECKED, root.reason, s, e, array=name, axis=axis,
                         index=(i0, i1))
            return
        extent, const = self._extent_expr(arr_t, axis, name, root, b)
        if extent is None:
            self._record("subscript", Status.UNCHECKED, f"the extent of axis {axis} of '{name}' "
                         "is not known", s, e, array=name, axis=axis, index=(i0, i1))
            return
        value = C.evaluate_int(idx) if self.mod.eliminate else None
        if const is not None and value is not None and 0 <= value < const:
            self._record("subscript", Status.ELIMINATED, f"constant index {value} < {const}", s, e,
                         array=name, axis=axis, index=(i0, i1), extent=const)
            return
        if not self._bracketed(i0, i1):
            self._record("subscript", Status.UNCHECKED, "inside a macro expansion", s, e,
                         array=name, axis=axis, index=(i0, i1))
            return
        self._record("subscript", Status.CHECKED, "", s, e, array=name, axis=axis,
                     index=(i0, i1), extent=const,
                     check=axis_check(idx, (i0, i1), extent if const is None else const, axis,
                                      depth, self.ps))

    def _pointer_subscript(self, c, base, index, depth, ctx):
        s, e = self.ps.offsets(c)
        b = C.strip(base)
        bs, be = self.ps.offsets(base)
        i0, i1 = self.ps.offsets(index)
        name = self.ps.text(base)
        root = self._unchecked_ctx(ctx) or self.root(base, s)    # or why not
        if isinstance(root, str):
            why = root
            self._record("subscript", Status.UNCHECKED, why, s, e, array=name, axis=0,
                         index=(i0, i1))
        else:
            swapped = bs > i0       # i[p]
            open_tok = self.ps.next_token(min(be, i1))
            close_tok = self.ps.next_token(max(be, i1))
            ok = (open_tok is not None and open_tok[2] == "[" and close_tok is not None and
                  close_tok[2] == "]" and close_tok[1] == e and be > bs and i1 > i0 and
                  self._editable(bs, be, i0, i1, open_tok[0], close_tok[0]))
            label = name if root.name == name else f"{name} (in {root.name})"
            if not ok:
                self._record("subscript", Status.UNCHECKED, "inside a macro expansion", s, e,
                             array=label, axis=0, index=(i0, i1))
            else:
                # the edit replaces the brackets: `(*__sk_ptr((p) + (i), ...))`
                check = pointer_check(root, (i0, i1), depth, index=index, pointer=(bs, be),
                                      itself=self.written_as_root(b, root) and not swapped,
                                      expr=b, brackets=(min(bs, i0), open_tok[:2],
                                                        close_tok[:2]), ps=self.ps)
                self._record("subscript", Status.CHECKED, "", s, e, axis=0, index=(i0, i1),
                             array=name if check.how == "index" else label, check=check)
        for ch in (base, index):
            self.visit(ch, depth + 1, ctx)

    def _wrap_pointer(self, kind, whole, ptr, depth, ctx, *, what=None):
        """Check one element at the pointer expression `ptr` (deref, ->, atomics)."""
        s, e = self.ps.offsets(whole)
        ps_, pe = self.ps.offsets(ptr)
        name = what or self.ps.text(ptr)
        root = self._unchecked_ctx(ctx) or self.root(ptr, s)    # or why not
        if isinstance(root, str):
            why = root
            self._record(kind, Status.UNCHECKED, why, s, e, array=name, axis=0, index=(ps_, pe))
        elif not self._wrappable(kind, ps_, pe):
            self._record(kind, Status.UNCHECKED, "inside a macro expansion", s, e, array=name,
                         axis=0, index=(ps_, pe))
        else:
            label = name if root.name == name else f"{name} (in {root.name})"
            self._record(kind, Status.CHECKED, "", s, e, array=label, axis=0, index=(ps_, pe),
                         check=element_check((ps_, pe), root, depth, ps=self.ps, value=ptr))

    def deref(self, c, operand, depth, ctx):
        o = C.strip(operand)
        if is_array_type(c.type) or type_kind(c.type) in ("FUNCTIONPROTO",
                                                             "FUNCTIONNOPROTO"):
            pass    # *tile is a row: an address, not an access
        elif is_pointer_type(o.type) or type_kind(o.type) == "POINTER" or \
                is_array_type(o.type):
            self._wrap_pointer("deref", c, operand, depth + 1, ctx)
        else:
            s, e = self.ps.offsets(c)
            self._record("deref", Status.UNCHECKED, "the pointer's type is not known "
                         "(template-dependent)", s, e, array=self.ps.text(operand))
        self.visit(operand, depth + 1, ctx)

    def member(self, c, depth, ctx):
        kids = C.children(c)
        if kids:
            obj = kids[0]
            o = C.strip(obj)
            tok = self.ps.next_token(obj.extent.end.offset)
            if tok is not None and tok[2] == "->" and o.kind != self.K.CXX_THIS_EXPR:
                self._wrap_pointer("arrow", c, obj, depth + 1, ctx)
        for ch in kids:
            self.visit(ch, depth + 1, ctx)


__all__ = ["CudaWalker"]
