"""Pointers and arrays inside a struct: what provenance.py's roots are for `g.nlist` and `s.a`.

A CUDA kernel taking a struct by value (`struct Graph { int nodes; int* nindex; int* nlist; }`,
launched from CuPy with a NumPy structured scalar) reads `g.nlist[j]`. The struct's bytes are
the kernel's copy: while the kernel never changes `g` (no assignment to it or to a member, no
`++`, its address or a member's never taken, never bound to a non-const reference, no non-const
method called on it), `g.nlist` holds the device address the launch passed. The launch knows
that address (it reads it out of the structured scalar) and looks up the allocation it lies in
(backends/cupy/struct_args.py): the bytes from the address to the allocation's end come in a
hidden argument `__sk_fbytes_<param>_<offset>` after the pointer parameters' sizes.

    fields = StructFields(ps, body, params)          # one kernel body
    fields.root_of(member_expr)                      # Root("field"/"array") or Unknown
    fields.used                                      # {(param, offset): FieldParam}
    fields.scalar_of(member_expr)                    # an integer field the launch passed

A fixed-size array member reached through `.` from a variable or parameter (`s.a`, `g.w.a`) is
its own memory whatever the kernel does with the struct: its root is an array of
`sizeof(s.a)` bytes, in kernels and device functions alike. Pointer fields of a device
function's struct parameter, and pointers reached through `->` (a struct passed by pointer),
stay unchecked with the reason: their addresses are not something the launch can see.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import parse as C
from .model import Root, Unknown
from .provenance import is_array_type, is_pointer_type, type_kind

_STEPS = ("++", "--", "post++", "post--")


@dataclass(frozen=True)
class FieldParam:
    """A pointer field of a kernel's by-value struct parameter whose extent the launch passes."""

    param: int            # the kernel parameter's index
    offset: int           # byte offset of the pointer within the parameter's bytes
    name: str             # as the source writes it: "g.nlist"
    struct_size: int      # sizeof the parameter's type (the launch checks the layout)

    @property
    def hidden(self) -> str:
        """The hidden parameter holding the field's extent in bytes."""
        return f"__sk_fbytes_{self.param}_{self.offset}"


def _record_type(t):
    canon = t.get_canonical()
    return canon if type_kind(canon) == "RECORD" else None


class StructFields:
    """The struct members of one function body that accesses may be checked against."""

    def __init__(self, ps, body, params, *, kernel: bool):
        self.ps = ps
        self.K = C.kinds()
        self.kernel = kernel
        self.param_index = {p.hash: i for i, p in enumerate(params)}
        self.params = list(params)
        self.used: dict = {}                    # (param, offset) -> FieldParam
        self.changed: dict = {}                 # param index -> why its fields may change
        if kernel:
            self._scan(body)

    # -- which struct parameters the body may change ----------------------------------------
    def _scan(self, body):
        K = self.K
        for c, _ in C.walk(body):
            if c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                if c.kind == K.BINARY_OPERATOR and C.binary_op(self.ps, c) != "=":
                    continue
                kids = C.children(c)
                if kids:
                    self._note(kids[0], "it is assigned in the kernel")
            elif c.kind == K.UNARY_OPERATOR:
                op = C.unary_op(self.ps, c)
                kids = C.children(c)
                if kids and op in _STEPS:
                    self._note(kids[0], "it is stepped in the kernel")
                elif kids and op == "&":
                    self._note(kids[0], "its address is taken in the kernel")
            elif c.kind == K.CALL_EXPR:
                self._call(c)
            elif c.kind == K.MEMBER_REF_EXPR:
                ref = c.referenced
                if ref is not None and ref.kind == K.CXX_METHOD and \
                        not ref.is_const_method():
                    kids = C.children(c)
                    if kids:
                        self._note(kids[0], f"its method '{ref.spelling}' may change it")

    def _call(self, call):
        """A struct (or member) bound to a non-const reference parameter may change."""
        ref = call.referenced
        args = list(call.get_arguments()) if hasattr(call, "get_arguments") else []
        params = [] if ref is None else [
            ch for ch in C.kids(ref) if ch.kind == self.K.PARM_DECL]
        for k, arg in enumerate(args):
            if self._param_of(arg) is None:
                continue
            if k >= len(params):
                if ref is None:
                    self._note(arg, "it is passed to a call safekern cannot resolve")
                continue
            t = params[k].type
            if type_kind(t) in ("LVALUEREFERENCE", "RVALUEREFERENCE") and \
                    not t.get_pointee().is_const_qualified():
                self._note(arg, f"it is passed by reference to '{ref.spelling}'")

    def _note(self, expr, why):
        i = self._param_of(expr)
        if i is not None:
            self.changed.setdefault(i, why)

    def _param_of(self, expr):
        """The index of the struct parameter `expr` (or a `.` member chain of it) is, if any."""
        e = C.strip(expr)
        while e.kind == self.K.MEMBER_REF_EXPR:
            kids = C.children(e)
            if not kids or self._arrow(e, kids[0]):
                return None
            e = C.strip(kids[0])
        if e.kind == self.K.DECL_REF_EXPR and e.referenced is not None:
            i = self.param_index.get(e.referenced.hash)
            if i is not None and _record_type(self.params[i].type) is not None:
                return i
        return None

    def _arrow(self, member, obj) -> bool:
        tok = self.ps.next_token(obj.extent.end.offset)
        return tok is None or tok[2] == "->" or is_pointer_type(C.strip(obj).type)

    # -- roots --------------------------------------------------------------------------------
    def root_of(self, member):
        """What the member expression `member` (a pointer or an array) points into."""
        K = self.K
        chain, e = [], C.strip(member)
        while e.kind == K.MEMBER_REF_EXPR:
            kids = C.children(e)
            if not kids:
                return Unknown("a member of an object safekern cannot follow")
            if self._arrow(e, kids[0]):
                return Unknown("a pointer or array inside a struct reached through '->' "
                               "(a struct passed by pointer): its extent is not known")
            chain.append(e)
            e = C.strip(kids[0])
        text = self.ps.text(member).strip()
        if is_array_type(C.strip(member).type):
            if e.kind == K.DECL_REF_EXPR and e.referenced is not None and \
                    e.referenced.kind in (K.VAR_DECL, K.PARM_DECL):
                return Root("array", text, text, f"(long long)sizeof({text})",
                            ("member", e.referenced.hash, text))
            return Unknown("an array inside a struct safekern cannot follow")
        if e.kind != K.DECL_REF_EXPR or e.referenced is None or \
                e.referenced.hash not in self.param_index:
            return Unknown("a pointer inside a struct that is not a kernel parameter (only a "
                           "kernel's by-value struct parameters have extents from the launch)")
        i = self.param_index[e.referenced.hash]
        if not self.kernel:
            return Unknown("a pointer inside a struct parameter of a device function (only a "
                           "kernel's struct parameters have extents from the launch)")
        if i in self.changed:
            return Unknown(f"a pointer inside struct parameter '{e.spelling}', which may "
                           f"change: {self.changed[i]}")
        record = _record_type(self.params[i].type)
        offset = self._offset(e.type, [m.spelling for m in reversed(chain)])
        size = record.get_size() if record is not None else -1
        if offset is None or size <= 0:
            return Unknown("a pointer inside a struct whose layout safekern cannot tell "
                           "(a reference, a template-dependent type or a bit-field member)")
        field = self.used.setdefault((i, offset), FieldParam(i, offset, text, size))
        return Root("field", field.name, text, field.hidden, ("field", i, offset))

    def scalar_of(self, member):
        """(param, offset, bytes, struct size) of an integer member read through `.` from a
        kernel's by-value struct parameter the kernel never changes (`g.nodes`): the launch
        passed its value (launch.py's launch facts), or None."""
        K = self.K
        chain, e = [], C.strip(member)
        while e.kind == K.MEMBER_REF_EXPR:
            kids = C.children(e)
            if not kids or self._arrow(e, kids[0]):
                return None
            chain.append(e)
            e = C.strip(kids[0])
        if not chain or not self.kernel or e.kind != K.DECL_REF_EXPR or \
                e.referenced is None or e.referenced.hash not in self.param_index:
            return None
        i = self.param_index[e.referenced.hash]
        record = _record_type(self.params[i].type)
        if i in self.changed or record is None:
            return None
        offset = self._offset(e.type, [m.spelling for m in reversed(chain)])
        size = C.strip(member).type.get_canonical().get_size()
        if offset is None or size not in (1, 2, 4, 8) or record.get_size() <= 0 or \
                (C.strip(member).referenced is not None and
                 C.strip(member).referenced.is_bitfield()):
            return None
        return i, offset, size, record.get_size()

    def _offset(self, t, names):
        """Byte offset of the member path `names` inside type `t`, or None."""
        offset = 0
        for name in names:
            rec = _record_type(t)
            if rec is None:
                return None
            bits = rec.get_offset(name)
            if bits < 0 or bits % 8:
                return None
            offset += bits // 8
            field = next((f for f in rec.get_fields() if f.spelling == name), None)
            if field is None:
                return None
            t = field.type
        return offset


__all__ = ["StructFields", "FieldParam"]
