"""What a pointer in CUDA C points into: the analysis half of the checking rewrite.

A pointer's *root* is the memory its accesses are checked against: a kernel's pointer parameter
(the size the launch passed), a device function's pointer parameter (base and size from the
caller), an array of known size, or `extern __shared__` memory. Local pointers get the root of
everything assigned to them (`row = a + r * n`, casts, `&a[k]`, `p++`); more than one root, or
an origin the analysis cannot follow, is `Unknown` with the reason, which the report shows.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import parse as C

NO_MEMORY_CALLS = frozenset(("printf", "__prefetch_global_l1", "__prefetch_global_l2",
                              "__nanosleep", "assert", "__assertfail", "SAFEKERN_ASSERT",
                              "SAFEKERN_ASSERT_MSG"))

_ARRAY_KINDS = ("CONSTANTARRAY", "INCOMPLETEARRAY", "DEPENDENTSIZEDARRAY", "VARIABLEARRAY")
_CASTS = ("CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
          "CXX_CONST_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR")


@dataclass(frozen=True)
class Root:
    """The memory a pointer may access: from `base`, `size` bytes (C expressions)."""

    kind: str            # "kparam", "dparam", "array", "extern", "scalar"
    name: str
    base: str
    size: str
    key: tuple
    scope: tuple | None = None   # (start, end) of the block the array is declared in


@dataclass(frozen=True)
class Unknown:
    reason: str


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


def operator_call(c):
    """A template-dependent operator use (`&x`, `*p` on dependent types is a CALL_EXPR to an
    unresolved operator): (operator spelling, operands), else None."""
    K = C.kinds()
    if c.kind != K.CALL_EXPR:
        return None
    op, operands = None, []
    for ch in c.get_children():
        s = C.strip(ch)
        name = ""
        if s.kind == K.DECL_REF_EXPR:
            name = s.spelling
            if not name:
                inner = [g for g in s.get_children() if g.kind == K.OVERLOADED_DECL_REF]
                name = inner[0].spelling if inner else ""
        elif s.kind == K.OVERLOADED_DECL_REF:
            name = s.spelling
        if op is None and name.startswith("operator") and not name[8:9].isalnum():
            op = name[8:].strip()
        else:
            operands.append(ch)
    return (op, operands) if op else None


def _type_kind(t) -> str:
    return t.kind.name


def _is_pointer_type(t) -> bool:
    kind = _type_kind(t)
    if kind == "POINTER":
        return _type_kind(t.get_pointee()) not in ("FUNCTIONPROTO", "FUNCTIONNOPROTO")
    if kind in ("ELABORATED", "TYPEDEF", "UNEXPOSED"):
        canon = t.get_canonical()
        if canon != t and _type_kind(canon) == "POINTER":
            return _is_pointer_type(canon)
    return False


def _is_array_type(t) -> bool:
    kind = _type_kind(t)
    if kind in _ARRAY_KINDS:
        return True
    if kind in ("ELABORATED", "TYPEDEF"):
        return _type_kind(t.get_canonical()) in _ARRAY_KINDS
    return False


def _array_type(t):
    return t if _type_kind(t) in _ARRAY_KINDS else t.get_canonical()



class PointerRoots:
    """Root analysis of one function body (mixed into the function rewriter).

    Needs `ps`, `K`, `fn`, `body`, `param_index`, `local_roots`, `modified_params`, `arrays`.
    """

    def _scan_declarations(self):
        K = self.K
        self.sources: dict[int, list] = {}
        self.address_taken: set[int] = set()
        for c, parents in C.walk(self.body):
            if c.kind == K.VAR_DECL:
                if _is_array_type(c.type):
                    scope = next((p for p in reversed(parents) if p.kind == K.COMPOUND_STMT),
                                 None)
                    self.arrays[c.hash] = self._array_root(c, scope)
                elif _is_pointer_type(c.type):
                    init = [ch for ch in c.get_children() if ch.kind.is_expression()]
                    self.sources.setdefault(c.hash, []).extend(init[-1:])
            elif c.kind == K.BINARY_OPERATOR and C.binary_op(self.ps, c) == "=":
                lhs, rhs = C.children(c)
                var = self._var_of(lhs)
                if var is not None:
                    self.sources.setdefault(var.hash, []).append(rhs)
                    if var.hash in self.param_index:
                        self.modified_params.add(var.hash)
            elif c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
                var = self._var_of(C.children(c)[0])
                if var is not None and var.hash in self.param_index:
                    self.modified_params.add(var.hash)
            elif c.kind == K.UNARY_OPERATOR:
                op = C.unary_op(self.ps, c)
                var = self._var_of(C.children(c)[0]) if C.children(c) else None
                if var is None:
                    continue
                if op in ("++", "--", "post++", "post--") and var.hash in self.param_index:
                    self.modified_params.add(var.hash)
                elif op == "&" and _is_pointer_type(var.type):
                    self.address_taken.add(var.hash)

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

    def _array_root(self, decl, scope) -> Root:
        name = decl.spelling
        extern = decl.storage_class.name == "EXTERN" and \
            _type_kind(_array_type(decl.type)) == "INCOMPLETEARRAY"
        shared = any(ch.kind == self.K.CUDASHARED_ATTR for ch in decl.get_children())
        span = (scope.extent.start.offset, scope.extent.end.offset) if scope is not None else None
        if extern and shared:
            return Root("extern", name, name, "__sk_dynsmem()", ("var", decl.hash), None)
        if extern:
            return Root("unsized", name, name, "", ("var", decl.hash), None)
        return Root("array", name, name, f"(long long)sizeof({name})", ("var", decl.hash), span)

    def _param_root(self, i: int) -> Root:
        p = self.fn.params[i]
        if self.fn.kernel:
            base = f"__sk_orig_{i}" if p.hash in self.modified_params else p.spelling
            if p.hash in self.modified_params:
                self.fn.orig_params.add(i)
            return Root("kparam", p.spelling, base, f"__sk_bytes_{i}", ("param", i))
        return Root("dparam", p.spelling, f"__sk_base_{i}", f"__sk_bytes_{i}", ("param", i))

    def root_of(self, expr, at: int | None = None):
        """What `expr` (a pointer or an array) points into: Root, None (null), or Unknown."""
        K = self.K
        e = C.strip(expr)
        kind = e.kind.name
        if kind in _CASTS:
            kids = [ch for ch in e.get_children() if ch.kind.is_expression()]
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
                    if _is_pointer_type(side.type) or _is_array_type(C.strip(side).type):
                        return self.root_of(side, at)
                return Unknown("pointer arithmetic of unknown form")
            if op in ("=", ","):
                return self.root_of(rhs, at)
        if e.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.root_of(C.children(e)[0], at)
        if e.kind == K.UNARY_OPERATOR:
            op = C.unary_op(self.ps, e)
            operand = C.children(e)[0]
            if op in ("++", "--", "post++", "post--"):
                return self.root_of(operand, at)
            if op == "&":
                inner = C.strip(operand)
                if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                    base, _ = self._split_subscript(inner)
                    return self.root_of(base, at) if base is not None else Unknown(
                        "a subscript of unknown type")
                if inner.kind == K.DECL_REF_EXPR and inner.referenced is not None and \
                        inner.referenced.kind == K.VAR_DECL:
                    name = inner.spelling
                    return Root("scalar", name, f"&{name}", f"(long long)sizeof({name})",
                                ("var", inner.referenced.hash))
                return Unknown("the address of something safekern cannot size")
        if e.kind == K.CONDITIONAL_OPERATOR:
            kids = C.children(e)
            if len(kids) == 3:
                return _join(self.root_of(kids[1], at), self.root_of(kids[2], at))
        if e.kind == K.ARRAY_SUBSCRIPT_EXPR and _is_array_type(e.type):
            base, _ = self._split_subscript(e)
            if base is not None:
                return self.root_of(base, at)
        if e.kind == K.CALL_EXPR:
            opcall = operator_call(e)
            if opcall is not None:
                op, operands = opcall
                if op == "&" and len(operands) == 1:
                    inner = C.strip(operands[0])
                    if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                        base, _ = self._split_subscript(inner)
                        if base is not None:
                            return self.root_of(base, at)
                if op in ("+", "-") and len(operands) == 2:
                    for side in operands:
                        if _is_pointer_type(side.type) or _is_array_type(C.strip(side).type):
                            return self.root_of(side, at)
                if op in ("++", "--") and len(operands) >= 1:
                    return self.root_of(operands[0], at)
                return Unknown(f"the result of operator{op} on a template-dependent type")
            return Unknown("a pointer returned by a function call")
        if e.kind == K.MEMBER_REF_EXPR:
            return Unknown("a pointer or array inside a struct")
        if e.kind == K.ARRAY_SUBSCRIPT_EXPR:
            return Unknown("a pointer loaded from memory")
        return Unknown("a pointer expression safekern cannot follow")

    def _root_of_decl(self, ref_expr, at):
        K = self.K
        decl = ref_expr.referenced
        if decl is None:
            return Unknown(f"'{ref_expr.spelling}' cannot be resolved (template-dependent)")
        if decl.kind == K.PARM_DECL:
            i = self.param_index.get(decl.hash)
            if i is None:
                return Unknown(f"'{decl.spelling}' is a parameter of an enclosing lambda")
            if not (_is_pointer_type(decl.type) or _is_array_type(decl.type)):
                return Unknown(f"'{decl.spelling}' is not a pointer parameter")
            if self.fn.kernel and decl.hash in self.modified_params:
                srcs = self.sources.get(decl.hash, [])
                root = self._param_root(i)
                for s in srcs:
                    other = self.root_of_no_param(s, decl.hash)
                    if other is not None and other != root and not isinstance(other, Unknown):
                        return Unknown(f"'{decl.spelling}' is reassigned to another array")
                    if isinstance(other, Unknown):
                        return other
                return root
            return self._param_root(i)
        if decl.kind == K.VAR_DECL:
            if decl.hash in self.arrays:
                root = self.arrays[decl.hash]
            elif _is_array_type(decl.type):
                root = self._global_array_root(decl, ref_expr)
            elif _is_pointer_type(decl.type):
                if decl.hash in self.local_roots:
                    return self.local_roots[decl.hash]
                if decl.hash in self.sources:
                    return None      # not solved yet (fixpoint iteration)
                return Unknown(f"'{decl.spelling}' is a pointer declared outside this function")
            else:
                return Unknown(f"'{decl.spelling}' is not an array or pointer")
            if root.kind == "unsized":
                return Unknown(f"'{decl.spelling}' is an extern array of unknown size")
            if root.scope is not None and at is not None and not (
                    root.scope[0] <= at <= root.scope[1]):
                return Unknown(f"'{decl.spelling}' is out of scope here")
            return root
        return Unknown(f"'{ref_expr.spelling}' is not an array or pointer variable")

    def root_of_no_param(self, expr, param_hash):
        """root_of for sources of a reassigned parameter (its own uses mean itself)."""
        e = C.strip(expr)
        if e.kind == self.K.DECL_REF_EXPR and e.referenced is not None and \
                e.referenced.hash == param_hash:
            return None
        if e.kind == self.K.BINARY_OPERATOR and C.binary_op(self.ps, e) in ("+", "-"):
            for side in C.children(e):
                if _is_pointer_type(side.type):
                    return self.root_of_no_param(side, param_hash)
        return self.root_of(expr)

    def _global_array_root(self, decl, ref_expr) -> Root:
        text = self.ps.text(ref_expr) or decl.spelling
        extern = decl.storage_class.name == "EXTERN" and \
            _type_kind(_array_type(decl.type)) == "INCOMPLETEARRAY"
        shared = any(ch.kind == self.K.CUDASHARED_ATTR for ch in decl.get_children())
        if extern and shared:
            return Root("extern", decl.spelling, text, "__sk_dynsmem()", ("var", decl.hash))
        if extern:
            return Root("unsized", decl.spelling, text, "", ("var", decl.hash))
        return Root("array", decl.spelling, text, f"(long long)sizeof({text})",
                    ("var", decl.hash))

    def _split_subscript(self, sub):
        """(base, index) of a subscript, whichever way round it is written (i[p] is p[i])."""
        kids = C.children(sub)
        if len(kids) != 2:
            return None, None
        a, b = kids
        ta, tb = C.strip(a).type, C.strip(b).type
        if _is_pointer_type(a.type) or _is_array_type(ta) or _type_kind(ta) == "POINTER":
            return a, b
        if _is_pointer_type(b.type) or _is_array_type(tb) or _type_kind(tb) == "POINTER":
            return b, a
        return None, None


__all__ = ["Root", "Unknown", "PointerRoots", "operator_call", "NO_MEMORY_CALLS"]
