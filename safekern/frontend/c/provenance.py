"""What a pointer points into: the one provenance analysis of the C front ends (both dialects).

A pointer's *root* (model.Root) is the memory its accesses are checked against: a kernel's
pointer parameter (the size the launch passed), a helper's -- an OpenCL helper function's, a CUDA
`__device__` function's -- pointer parameter (where it points and the size come from the
caller), an array of known size, `extern __shared__` memory, or a variable whose address is
taken. Local pointers get the root of everything assigned to them (`row = a + r * n`, casts,
`&a[k]`, `p++`), solved to a fixed point; more than one root, or an origin the analysis cannot
follow, is `Unknown` with the reason, which the report shows; a null pointer has no root (None).

    prov = Provenance(ps, body, params, pointer_params, dialect, kernel=True)
    prov.root_of(expr, at)        # Root, None (a null pointer) or Unknown; `at`: the use's offset
    prov.is_param_itself(expr)    # the pointer parameter itself, never reassigned
    prov.param_of(expr, at)       # index of the parameter whose memory it is, None, or why not
    prov.moved                    # parameters assigned, stepped or address-taken in the body
    prov.originals                # moved parameters some root names by their entry value

The analysis is the same for OpenCL C and CUDA C++ (C++'s casts, `nullptr` and operators of
template-dependent types simply do not occur in OpenCL C). What differs is the C text that
names a root's memory, which the dialect gives (model.Dialect): `param_root`, `array_root` and
`scalar_root`.
"""
from __future__ import annotations

from . import parse as C
from .model import Root, Unknown

_ARRAY_KINDS = ("CONSTANTARRAY", "INCOMPLETEARRAY", "DEPENDENTSIZEDARRAY", "VARIABLEARRAY")
_CASTS = ("CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
          "CXX_CONST_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR")
_STEPS = ("++", "--", "post++", "post--")
_PARAM_KINDS = ("param", "helper_param")


# -- types ---------------------------------------------------------------------------------

def type_kind(t) -> str:
    return t.kind.name


def is_pointer_type(t) -> bool:
    """A pointer to data (not to a function), also through a typedef."""
    kind = type_kind(t)
    if kind == "POINTER":
        return type_kind(t.get_pointee()) not in ("FUNCTIONPROTO", "FUNCTIONNOPROTO")
    if kind in ("ELABORATED", "TYPEDEF", "UNEXPOSED"):
        canon = t.get_canonical()
        if canon != t and type_kind(canon) == "POINTER":
            return is_pointer_type(canon)
    return False


def is_array_type(t) -> bool:
    kind = type_kind(t)
    if kind in _ARRAY_KINDS:
        return True
    if kind in ("ELABORATED", "TYPEDEF"):
        return type_kind(t.get_canonical()) in _ARRAY_KINDS
    return False


def array_type(t):
    return t if type_kind(t) in _ARRAY_KINDS else t.get_canonical()


# -- expressions ---------------------------------------------------------------------------

def operator_call(c):
    """A template-dependent operator use (`&x`, `*p` on dependent types is a CALL_EXPR to an
    unresolved operator): (operator spelling, operands), else None."""
    K = C.kinds()
    if c.kind != K.CALL_EXPR:
        return None
    op, operands = None, []
    for ch in C.kids(c):
        s = C.strip(ch)
        name = ""
        if s.kind == K.DECL_REF_EXPR:
            name = s.spelling
            if not name:
                inner = [g for g in C.kids(s) if g.kind == K.OVERLOADED_DECL_REF]
                name = inner[0].spelling if inner else ""
        elif s.kind == K.OVERLOADED_DECL_REF:
            name = s.spelling
        if op is None and name.startswith("operator") and not name[8:9].isalnum():
            op = name[8:].strip()
        else:
            operands.append(ch)
    return (op, operands) if op else None


def split_subscript(sub):
    """(base, index) of a subscript, whichever way round it is written (i[p] is p[i])."""
    kids = C.children(sub)
    if len(kids) != 2:
        return None, None
    a, b = kids
    ta, tb = C.strip(a).type, C.strip(b).type
    if is_pointer_type(a.type) or is_array_type(ta) or type_kind(ta) == "POINTER":
        return a, b
    if is_pointer_type(b.type) or is_array_type(tb) or type_kind(tb) == "POINTER":
        return b, a
    return None, None


def _join(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, Unknown):
        return a
    if isinstance(b, Unknown):
        return b
    return Unknown(f"it points into more than one array ({a.name}, {b.name})")


# -- the analysis --------------------------------------------------------------------------

class Provenance:
    """The roots of the pointers of one function body.

    `params`: the function's PARM_DECL cursors, in order; `pointer_params`: the indexes of
    those that have a root (the pointer parameters that get a hidden size); `kernel`: the
    function is a kernel (its pointer parameters' sizes come from the launch, so a parameter
    reassigned to other memory cannot be checked)."""

    def __init__(self, ps, body, params, pointer_params, dialect, *, kernel: bool,
                 fields=None):
        self.ps = ps
        # struct_fields.StructFields: the roots of struct members (None: unknown, OpenCL)
        self.fields = fields
        self.K = C.kinds()
        self.body = body
        self.params = list(params)
        self.pointer_params = set(pointer_params)
        self.dialect = dialect
        self.kernel = kernel
        self.param_index = {p.hash: i for i, p in enumerate(self.params)}
        self.sources: dict[int, list] = {}       # declaration -> expressions assigned to it
        self.address_taken: set[int] = set()     # local pointers whose address is taken
        self.arrays: dict[int, Root] = {}        # arrays declared in the body
        self.local_roots: dict[int, object] = {}
        self.moved: set[int] = set()             # parameter indexes
        self.originals: set[int] = set()
        self._scan()
        self._solve_local_roots()

    # -- declarations and assignments ------------------------------------------------------
    def _scan(self):
        K = self.K
        for c, parents in C.walk(self.body):
            if c.kind == K.VAR_DECL:
                if is_array_type(c.type):
                    scope = next((p for p in reversed(parents) if p.kind == K.COMPOUND_STMT),
                                 None)
                    span = (scope.extent.start.offset, scope.extent.end.offset) \
                        if scope is not None else None
                    self.arrays[c.hash] = self.dialect.array_root(c, c.spelling, span)
                elif is_pointer_type(c.type):
                    init = [ch for ch in C.kids(c) if ch.kind.is_expression()]
                    self.sources.setdefault(c.hash, []).extend(init[-1:])
            elif c.kind == K.BINARY_OPERATOR and C.binary_op(self.ps, c) == "=":
                lhs, rhs = C.children(c)
                var = self._var_of(lhs)
                if var is not None and (var.hash in self.param_index or
                                        is_pointer_type(var.type)):
                    self.sources.setdefault(var.hash, []).append(rhs)
                    self._note_moved(var)
            elif c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
                var = self._var_of(C.children(c)[0])
                if var is not None:
                    self._note_moved(var)
            elif c.kind == K.UNARY_OPERATOR:
                op = C.unary_op(self.ps, c)
                var = self._var_of(C.children(c)[0]) if C.children(c) else None
                if var is None:
                    continue
                if op in _STEPS:
                    self._note_moved(var)
                elif op == "&":
                    # A parameter whose address is taken may change unseen: its entry value
                    # is the root; a local pointer's root cannot be told.
                    self._note_moved(var)
                    if var.hash not in self.param_index and is_pointer_type(var.type):
                        self.address_taken.add(var.hash)

    def _note_moved(self, var):
        i = self.param_index.get(var.hash)
        if i is not None:
            self.moved.add(i)

    def _var_of(self, expr):
        e = C.strip(expr)
        if e.kind == self.K.DECL_REF_EXPR and e.referenced is not None and \
                e.referenced.kind in (self.K.VAR_DECL, self.K.PARM_DECL):
            return e.referenced
        return None

    def _solve_local_roots(self):
        for _ in range(12):
            changed = False
            for key, srcs in self.sources.items():
                if key in self.param_index:
                    continue
                root = None
                for s in srcs:
                    root = _join(root, self.root_of(s))
                if key in self.address_taken:
                    root = Unknown("its address is taken, so it may change unseen")
                if self.local_roots.get(key) != root:
                    self.local_roots[key] = root
                    changed = True
            if not changed:
                break

    # -- roots -----------------------------------------------------------------------------
    def _param_root(self, i: int) -> Root:
        moved = i in self.moved
        if moved:
            self.originals.add(i)
        return self.dialect.param_root(self.params[i], i, kernel=self.kernel, moved=moved)

    def root_of(self, expr, at: int | None = None):
        """What `expr` (a pointer or an array) points into: Root, None (null), or Unknown.
        `at`: the offset of the use (an array declared in a block is out of scope elsewhere)."""
        K = self.K
        e = C.strip(expr)
        kind = e.kind.name
        if kind in _CASTS:
            kids = [ch for ch in C.kids(e) if ch.kind.is_expression()]
            return self.root_of(kids[-1], at) if kids else Unknown("a cast of unknown form")
        if e.kind == K.DECL_REF_EXPR:
            return self._root_of_decl(e, at)
        if e.kind in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR):
            return None
        if e.kind == K.INTEGER_LITERAL and C.evaluate_int(e) == 0:
            return None
        if e.kind == K.BINARY_OPERATOR:
            op = C.binary_op(self.ps, e)
            lhs, rhs = C.children(e)
            if op in ("+", "-"):
                for side in (lhs, rhs):
                    if is_pointer_type(side.type) or is_array_type(C.strip(side).type):
                        return self.root_of(side, at)
                return Unknown("pointer arithmetic of unknown form")
            if op in ("=", ","):
                return self.root_of(rhs, at)
        if e.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.root_of(C.children(e)[0], at)
        if e.kind == K.UNARY_OPERATOR:
            op = C.unary_op(self.ps, e)
            operand = C.children(e)[0]
            if op in _STEPS:
                return self.root_of(operand, at)
            if op == "&":
                inner = C.strip(operand)
                if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                    base, _ = split_subscript(inner)
                    return self.root_of(base, at) if base is not None else Unknown(
                        "a subscript of unknown type")
                if inner.kind == K.DECL_REF_EXPR and inner.referenced is not None and \
                        inner.referenced.kind == K.VAR_DECL:
                    return self.dialect.scalar_root(inner.referenced, inner.spelling)
                return Unknown("the address of something safekern cannot size")
        if e.kind == K.CONDITIONAL_OPERATOR:
            kids = C.children(e)
            if len(kids) == 3:
                return _join(self.root_of(kids[1], at), self.root_of(kids[2], at))
        if e.kind == K.ARRAY_SUBSCRIPT_EXPR and is_array_type(e.type):
            base, _ = split_subscript(e)
            if base is not None:
                return self.root_of(base, at)
        if e.kind == K.CALL_EXPR:
            return self._root_of_call(e, at)
        if e.kind == K.MEMBER_REF_EXPR:
            if self.fields is not None:
                return self.fields.root_of(e)
            return Unknown("a pointer or array inside a struct")
        if e.kind == K.ARRAY_SUBSCRIPT_EXPR:
            return Unknown("a pointer loaded from memory")
        return Unknown("a pointer expression safekern cannot follow")

    def _root_of_call(self, e, at):
        opcall = operator_call(e)
        if opcall is None:
            return Unknown("a pointer returned by a function call")
        op, operands = opcall
        if op == "&" and len(operands) == 1:
            inner = C.strip(operands[0])
            if inner.kind == self.K.ARRAY_SUBSCRIPT_EXPR:
                base, _ = split_subscript(inner)
                if base is not None:
                    return self.root_of(base, at)
        if op in ("+", "-") and len(operands) == 2:
            for side in operands:
                if is_pointer_type(side.type) or is_array_type(C.strip(side).type):
                    return self.root_of(side, at)
        if op in ("++", "--") and len(operands) >= 1:
            return self.root_of(operands[0], at)
        return Unknown(f"the result of operator{op} on a template-dependent type")

    def _root_of_decl(self, ref_expr, at):
        K = self.K
        decl = ref_expr.referenced
        if decl is None:
            return Unknown(f"'{ref_expr.spelling}' cannot be resolved (template-dependent)")
        if decl.kind == K.PARM_DECL:
            return self._root_of_param(decl)
        if decl.kind != K.VAR_DECL:
            return Unknown(f"'{ref_expr.spelling}' is not an array or pointer variable")
        if decl.hash in self.arrays:
            root = self.arrays[decl.hash]
        elif is_array_type(decl.type):
            root = self.dialect.array_root(decl, self.ps.text(ref_expr) or decl.spelling, None)
        elif is_pointer_type(decl.type):
            if decl.hash in self.local_roots:
                return self.local_roots[decl.hash]
            if decl.hash in self.sources:
                return None      # not solved yet (fixpoint iteration)
            return Unknown(f"'{decl.spelling}' is a pointer declared outside this function")
        else:
            return Unknown(f"'{decl.spelling}' is not an array or pointer")
        if isinstance(root, Unknown):
            return root
        if root.scope is not None and at is not None and not (
                root.scope[0] <= at <= root.scope[1]):
            return Unknown(f"'{decl.spelling}' is out of scope here")
        return root

    def _root_of_param(self, decl):
        i = self.param_index.get(decl.hash)
        if i is None:
            return Unknown(f"'{decl.spelling}' is a parameter of an enclosing lambda")
        if i not in self.pointer_params:
            return Unknown(f"'{decl.spelling}' is not a pointer parameter")
        root = self._param_root(i)
        if self.kernel and i in self.moved:
            # The launch passed the size of the memory the parameter pointed to on entry.
            for s in self.sources.get(decl.hash, []):
                other = self._root_of_source(s, decl.hash)
                if isinstance(other, Unknown):
                    return other
                if other is not None and other != root:
                    return Unknown(f"'{decl.spelling}' is reassigned to another array")
        return root

    def _root_of_source(self, expr, param_hash):
        """root_of for what is assigned to a reassigned parameter (its own uses mean itself)."""
        e = C.strip(expr)
        if e.kind == self.K.DECL_REF_EXPR and e.referenced is not None and \
                e.referenced.hash == param_hash:
            return None
        if e.kind == self.K.BINARY_OPERATOR and C.binary_op(self.ps, e) in ("+", "-"):
            for side in C.children(e):
                if is_pointer_type(side.type):
                    return self._root_of_source(side, param_hash)
        return self.root_of(expr)

    # -- questions of the passes above -------------------------------------------------------
    def is_param_itself(self, expr) -> bool:
        """`expr` is a pointer parameter that the function never moves: its accesses can be
        checked as indexes against the element count."""
        e = C.strip(expr)
        if e.kind != self.K.DECL_REF_EXPR or e.referenced is None:
            return False
        i = self.param_index.get(e.referenced.hash)
        return i is not None and i in self.pointer_params and i not in self.moved

    def param_of(self, expr, at: int | None = None):
        """The index of the parameter whose memory `expr` points into; None where it is not a
        parameter's (an array, a variable, a null pointer); a str saying why it cannot be told
        (writes.py)."""
        root = self.root_of(expr, at)
        if isinstance(root, Unknown):
            return root.reason
        if isinstance(root, Root) and root.kind in _PARAM_KINDS:
            return int(root.key[1])
        if isinstance(root, Root) and root.kind == "field":
            return "a pointer inside a struct (its memory may be any argument's)"
        return None


__all__ = ["Provenance", "operator_call", "split_subscript", "type_kind", "is_pointer_type",
           "is_array_type", "array_type"]
