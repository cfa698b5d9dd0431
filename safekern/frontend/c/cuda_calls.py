"""The calls in one CUDA C function body (the rest of its walk is cuda_access.py).

- barriers: `__syncthreads*` and a cooperative group's block `sync()` become safekern's
  `__sk_sync*` (a failing thread exits and the block leaves together at the next barrier);
  grid, cluster, named and split barriers cannot be made safe and are rejected at their line;
- the address arguments of atomics and `__ldg`-style loads are checked as one element
  (`atomicAdd(&x, v)` on a variable is in bounds);
- calls of the source's own `__device__` functions get the failure buffer and, per pointer
  parameter, the base and size of the caller's array as hidden arguments;
- arrays handed to functions the source does not define are reported unchecked.

`CallHooks` is a base class of cuda_access.CudaWalker (the CUDA hooks of walker.py's walk),
whose state it uses (`ps`, `K`, `mod`, `fn`, `prov`, `safety`), whose records it adds to
(`failure_sites`, `barrier_sites`, `hidden_args`, `callees`) and whose walk it calls
back (`visit`, `subscript`, `_record`, `_wrap_pointer`, `_editable`, `_unchecked_ctx`,
`_safety_ctx`). It finds; cuda_edits.py writes the edits.
"""
from __future__ import annotations

import re

from ...errors import UnsupportedError
from ...failures import FailureSite, site_code
from ...report import Status
from . import parse as C
from .cuda_dialect import (ADDRESS_BUILTINS, BACKEND, BARRIERS, NO_MEMORY_CALLS,
                           UNSAFE_BARRIER_CALLS)
from .model import CALL, HelperCall, Unknown
from .provenance import is_array_type, is_pointer_type, operator_call

_SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")


def call_name(ps, c) -> str:
    """The called function's name, also for calls a template leaves unresolved."""
    K = C.kinds()
    kids = C.children(c)
    if not kids:
        return c.spelling or ""
    callee = C.strip(kids[0])
    if callee.kind == K.DECL_REF_EXPR and callee.spelling:
        return callee.spelling
    for ch in C.walk(callee):
        if ch[0].kind == K.OVERLOADED_DECL_REF and ch[0].spelling:
            return ch[0].spelling
    toks = ps.tokens_between(*ps.offsets(callee))
    idents = [t[2] for t in toks if t[2].isidentifier() and t[2] != "template"]
    if "<" in [t[2] for t in toks]:
        cut = [t[2] for t in toks].index("<")
        idents = [t[2] for t in toks[:cut] if t[2].isidentifier()]
    return idents[-1] if idents else (c.spelling or "")


class CallHooks:
    """Barriers, atomics, calls of the source's functions and of others (see the module)."""

    def _reject(self, c, problem):
        s, e = self.ps.offsets(c)
        return self.ps.error(problem, s, e, kernel=self.fn.name, cls=UnsupportedError)

    def call(self, c, depth, ctx):
        K = self.K
        kids = C.children(c)
        callee = C.strip(kids[0]) if kids else None
        args = kids[1:]
        if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
            if self._member_call(c, callee, depth):
                return
            for ch in kids:
                self.visit(ch, depth + 1, ctx)
            return
        name = call_name(self.ps, c)
        if self.safety.is_assert(name) and not self.safety.assert_call(
                c, name, depth, unusable=self._safety_ctx(ctx)):
            return            # compiled away: its accesses do not run
        if name in UNSAFE_BARRIER_CALLS:
            raise self._reject(c, f"{UNSAFE_BARRIER_CALLS[name]} cannot be made barrier-safe: "
                               "a thread that fails a check exits, and only barriers of the "
                               "whole block (__syncthreads) are released by exiting threads")
        if name in BARRIERS and callee is not None:
            self._barrier(callee, BARRIERS[name])
        elif name == "sync" and callee is not None and args and self._is_cg(args[0], "block"):
            self._barrier(callee, "__sk_cg_sync")
        elif name == "sync" and callee is not None and args and self._is_cg(args[0], "grid"):
            raise self._reject(c, self._grid_message())
        elif name in ADDRESS_BUILTINS and args:
            self._address_arg(c, args[0], depth, ctx)
            for ch in args[1:]:
                self.visit(ch, depth + 1, ctx)
            return
        else:
            target = self.mod._resolve(c, name)
            if target is not None:
                self._user_call(c, callee, target, args, ctx)
            elif name not in NO_MEMORY_CALLS:
                self._foreign_call(name, args)
        for ch in args:
            self.visit(ch, depth + 1, ctx)
        if callee is not None and callee.kind != K.DECL_REF_EXPR:
            self.visit(callee, depth + 1, ctx)

    def _grid_message(self):
        return ("grid- or cluster-wide synchronisation cannot be made barrier-safe: a thread "
                "that fails a check exits, and the other blocks would wait for it")

    def _is_cg(self, expr, which: str) -> bool:
        t = C.strip(expr).type.get_canonical().spelling
        t = t.replace("const ", "").replace("&", "").strip()
        if which == "block":
            return t.endswith("thread_block") and "cooperative_groups" in t
        return any(t.endswith(g) for g in ("grid_group", "cluster_group", "multi_grid_group"))

    def _member_call(self, c, callee, depth) -> bool:
        """cooperative_groups: block.sync() -> __sk_cg_sync(block). True when rewritten."""
        kids = C.children(callee)
        if not kids:
            return False
        obj = kids[0]
        method = callee.spelling
        if method in UNSAFE_BARRIER_CALLS:
            raise self._reject(c, f"{UNSAFE_BARRIER_CALLS[method]} cannot be made "
                               "barrier-safe: a thread that fails a check exits, and only "
                               "whole-block barriers are released by exiting threads")
        if method != "sync":
            return False
        if self._is_cg(obj, "grid"):
            raise self._reject(c, self._grid_message())
        if not self._is_cg(obj, "block"):
            return False
        s, e = self.ps.offsets(c)
        os_, oe = self.ps.offsets(obj)
        if not self._editable(s, e - 1):
            raise self._reject(c, "a block barrier inside a macro expansion cannot be "
                               "rewritten; call it directly")
        self.barrier_sites.append(("group", s, oe, e, depth))    # cuda_edits.barrier_edits
        self.visit(obj, depth + 1, {})
        return True

    def _barrier(self, callee, new_name):
        s, e = self.ps.offsets(callee)
        if not self._editable(s, e - 1) or e <= s:
            raise self._reject(callee, "a block barrier inside a macro expansion cannot be "
                               "rewritten; call it directly")
        self.barrier_sites.append(("call", s, e, new_name))      # cuda_edits.barrier_edits

    def _address_arg(self, call, arg, depth, ctx):
        K = self.K
        a = C.strip(arg)
        opcall = operator_call(a)
        is_addr = (a.kind == K.UNARY_OPERATOR and C.unary_op(self.ps, a) == "&") or (
            opcall is not None and opcall[0] == "&" and len(opcall[1]) == 1)
        if is_addr:
            operand = C.children(a)[0] if opcall is None else opcall[1][0]
            inner = C.strip(operand)
            if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                self.subscript(inner, depth + 2, ctx, access=True)
                return
            # The address of a variable is in bounds (of a reference: where it was bound,
            # an access checked -- or reported unchecked -- at the binding).
            if inner.kind == K.DECL_REF_EXPR and self.mod.eliminate:
                s, e = self.ps.offsets(arg)
                self._record("atomic", Status.ELIMINATED,
                             f"the address of variable '{inner.spelling}'", s, e,
                             array=inner.spelling)
                return
            if inner.kind == K.MEMBER_REF_EXPR:
                self.visit(inner, depth + 2, ctx)
                return
        self._wrap_pointer("atomic", arg, arg, depth + 1, ctx,
                           what=None)
        self.visit(arg, depth + 1, ctx)

    def _call_site(self, callee, target) -> int:
        """The code of a call of `target`, which its call chain argument carries
        (call_chains.py); the call site is returned among the failure sites, so a failure
        inside `target` can name it."""
        s, e = self.ps.offsets(callee)
        filename, lineno, col, physical = self.ps.place(s)
        end_line, end_col = self.ps.line_col(e)
        code = site_code(BACKEND, self.ps.filename, physical, col, self.fn.name, target.name,
                         "call")     # (from the physical place: a `#line` may repeat one)
        self.failure_sites.append(FailureSite(
            code=code, kind=CALL, kernel=self.fn.name, filename=filename,
            lineno=lineno, source_line=self.ps.source_line(physical), col=col,
            end_col=end_col if end_line == physical and e > s else None, array=None, axis=None,
            callee=target.name, in_kernel=self.fn.kernel))
        return code

    def _foreign_call(self, name, args):
        """Arrays passed to functions this source does not define (headers, CUDA's library)
        are accessed there unchecked: say so."""
        for arg in args:
            a = C.strip(arg)
            if not (is_pointer_type(a.type) or is_array_type(a.type)):
                continue
            root = self.prov.root_of(arg, arg.extent.start.offset)
            if root is None or isinstance(root, Unknown) or root.kind == "scalar":
                continue
            s, e = self.ps.offsets(arg)
            self._record("argument", Status.UNCHECKED,
                         f"passed to '{name or 'a function'}', which is not defined in this "
                         "source: its accesses are not checked", s, e, array=root.name)

    def _user_call(self, c, callee, target, args, ctx):
        self.callees.add(target)
        if not target.rewritable:
            return
        if target.kernel:
            self._device_launch(c, target, args, ctx)
            return
        ce = callee.extent.end.offset
        tok = self.ps.next_token(ce)
        if tok is None or tok[2] != "(" or not self._editable(tok[0]):
            raise self._reject(c, f"cannot add safekern's hidden arguments to this call of "
                               f"'{target.name}' (inside a macro expansion?)")
        call = HelperCall(c, target.name, tok[1], len(args), target=target,
                          chain=self._call_site(callee, target), caller_kernel=self.fn.kernel)
        for i in target.pointer_indexes:
            root = self._argument_root(c, target, args, i, ctx)
            call.args.append(None if root is None else (root, None))
        # spelled (cuda_edits.py) once the module knows whether `target` takes hidden
        # parameters at all
        self.hidden_args.append(call)

    def _argument_root(self, c, target, args, i, ctx):
        """The root (base, size) of the array pointer argument `i` of a call points into; None,
        recorded unchecked with the reason, when the caller does not know it."""
        arg = args[i] if i < len(args) else None
        root = self.prov.root_of(arg, c.extent.start.offset) if arg is not None else None
        reason = self._unchecked_ctx(ctx)
        if reason or root is None or isinstance(root, Unknown):
            why = reason or (root.reason if root is not None else
                             "no array is passed (default argument or null)")
            s, e = self.ps.offsets(arg if arg is not None else c)
            pname = target.params[i].spelling if i < len(target.params) else str(i)
            self._record("argument", Status.UNCHECKED,
                         f"accesses through parameter '{pname}' of '{target.name}' are "
                         f"not checked for this call: {why}", s, e,
                         array=self.ps.text(arg) if arg is not None else pname)
            return None
        return root

    def _pointer_argument(self, c, target, args, i, ctx):
        """(root, the argument's byte range) of the parent's array a pointer argument points
        into; None (recorded unchecked) when the parent does not know it."""
        root = self._argument_root(c, target, args, i, ctx)
        if root is None:
            return None
        if _SIDE_EFFECT.search(self.ps.text(args[i])):   # the bytes' computation evaluates
            raise self._reject(args[i], f"launching '{target.name}' from device code with an "
                               "argument that has side effects: compute it into a variable "
                               "first")             # it once more
        return root, self.ps.offsets(args[i])

    def _device_launch(self, c, target, args, ctx):
        """`child<<<grid, block>>>(args)` in device code (device_launch.py): the child's
        hidden arguments appended before the launch's closing parenthesis."""
        if target.field_params:
            raise self._reject(c, f"launching '{target.name}' from device code: its struct "
                               "arguments' pointer fields cannot be sized there")
        close = c.extent.end.offset - 1
        if self.ps.slice(close, close + 1) != ")" or not self._editable(close):
            raise self._reject(c, f"cannot add safekern's hidden arguments to this launch of "
                               f"'{target.name}' (inside a macro expansion?)")
        self.hidden_args.append(HelperCall(
            c, target.name, close, len(args), target=target, launch=True,
            args=[self._pointer_argument(c, target, args, i, ctx)
                  for i in target.pointer_indexes]))


__all__ = ["CallHooks", "call_name"]
