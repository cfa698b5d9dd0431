"""The CUDA checking rewrite: find each function's accesses, then edit the text (see cuda.py).

Analysis first: which user functions exist (kernels, `__device__` functions), what each pointer
points into (its *root*: a kernel parameter, a device-function parameter, an array of known size,
`extern __shared__` memory), and every access. Then the edits: checks at the accesses, hidden
parameters at the signatures and call sites, the kernel preludes, the barrier replacements.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..errors import UnsupportedError
from . import clang as C
from .cuda import (ADDRESS_BUILTINS, BACKEND, BARRIERS, UNSAFE_BARRIER_CALLS, _ASM_BARRIER,
                   CudaRewrite, KernelInfo, ParamInfo, device_prelude)

# Functions that take pointers without touching arrays through them (or only strings).
_NO_MEMORY_CALLS = frozenset(("printf", "__prefetch_global_l1", "__prefetch_global_l2",
                              "__nanosleep", "assert", "__assertfail"))

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


@dataclass(eq=False)
class Function:
    """A function defined in the user's source that the rewrite may change."""

    cursor: object
    name: str
    qualified: str
    kernel: bool
    template: bool
    extern_c: bool
    params: list                 # PARM_DECL cursors
    decls: list                  # every declaration in the user's source (prototypes too)
    rewritable: bool = True      # False: keeps its signature (see `why`)
    why: str = ""
    barriers: bool = False
    calls: set = field(default_factory=set)
    count_params: set = field(default_factory=set)    # kernel params with a fast count
    orig_params: set = field(default_factory=set)     # kernel params reassigned in the body

    @property
    def pointer_indexes(self) -> list[int]:
        return [i for i, p in enumerate(self.params) if _is_pointer_type(p.type)]


class ModuleRewriter:
    def __init__(self, ps, *, checks: bool = True):
        self.ps = ps
        self.checks = checks
        self.K = C.kinds()
        self.edits: list[C.Edit] = []
        self.accesses: list[C.Access] = []
        self.functions: list[Function] = []
        self.by_location: dict[int, Function] = {}
        self.by_name: dict[str, list[Function]] = {}

    # -- collecting functions ----------------------------------------------------------------
    def _collect(self, cursor, namespaces=(), extern_c=False):
        K = self.K
        for ch in cursor.get_children():
            if not self.ps.in_main_file(ch):
                continue
            if ch.kind == K.NAMESPACE:
                self._collect(ch, namespaces + (ch.spelling,), extern_c)
            elif ch.kind == K.LINKAGE_SPEC:
                self._collect(ch, namespaces, True)
            elif ch.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
                attrs = {a.kind for a in ch.get_children()}
                kernel = K.CUDAGLOBAL_ATTR in attrs
                device = K.CUDADEVICE_ATTR in attrs
                if not (kernel or device):
                    continue
                key = ch.canonical.location.offset if ch.canonical.location.file else None
                fn = next((f for f in self.functions if f.cursor.canonical == ch.canonical),
                          None)
                if fn is None:
                    fn = Function(cursor=ch, name=ch.spelling,
                                  qualified="::".join(namespaces + (ch.spelling,)),
                                  kernel=kernel, template=ch.kind == K.FUNCTION_TEMPLATE,
                                  extern_c=extern_c, params=self._params(ch), decls=[])
                    self.functions.append(fn)
                    self.by_name.setdefault(ch.spelling, []).append(fn)
                fn.decls.append(ch)
                if ch.is_definition():
                    fn.cursor = ch
                    fn.params = self._params(ch)
                macro = self.ps.macro_at(ch.location.offset, ch.location.offset + 1)
                if macro is not None:
                    fn.rewritable = False
                    fn.why = (f"'{fn.name}' is defined by macro '{macro}', whose expansion "
                              "safekern cannot edit")
                self.by_location[ch.location.offset] = fn
                if key is not None:
                    self.by_location.setdefault(key, fn)

    def _params(self, fn_cursor) -> list:
        return [c for c in fn_cursor.get_children() if c.kind == self.K.PARM_DECL]

    def _resolve(self, call, name: str) -> Function | None:
        """The user function a CALL_EXPR calls, if it is one."""
        K = self.K
        ref = call.referenced
        if ref is not None and ref.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
            loc = ref.location
            if loc.file is not None and loc.file.name == self.ps.path:
                fn = self.by_location.get(loc.offset)
                if fn is not None:
                    return fn
            if ref.canonical.location.file is not None:
                fn = self.by_location.get(ref.canonical.location.offset)
                if fn is not None and ref.canonical.location.file.name == self.ps.path:
                    return fn
            return None
        cands = self.by_name.get(name or "", [])
        if not cands or ref is not None:
            return None
        shapes = {tuple(f.pointer_indexes) for f in cands}
        if len(shapes) > 1 or any(not f.rewritable for f in cands):
            raise self.ps.error(
                f"cannot tell which overload of '{name}' this call uses (the overloads differ "
                "in their pointer parameters); give them different names",
                *self.ps.offsets(call), cls=UnsupportedError)
        return cands[0]

    def _mark_indirect_uses(self):
        """Functions referenced other than as a direct callee inside a function body keep
        their signature; their accesses are reported unchecked."""
        K = self.K
        callee_refs = set()
        bodies = [(f, C.function_body(f.cursor)) for f in self.functions]
        for _, body in bodies:
            if body is None:
                continue
            for c, _ in C.walk(body):
                if c.kind == K.CALL_EXPR:
                    ch = C.children(c)
                    if ch:
                        callee = C.strip(ch[0])
                        callee_refs.add(callee.extent.start.offset)
        for c, parents in C.walk(self.ps.tu.cursor):
            if c.kind != K.DECL_REF_EXPR or not self.ps.in_main_file(c):
                continue
            ref = c.referenced
            if ref is None or ref.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
                continue
            fn = self.by_location.get(ref.location.offset) or (
                self.by_location.get(ref.canonical.location.offset))
            if fn is None or fn.kernel:
                continue
            in_body = any(p.kind == K.COMPOUND_STMT for p in parents) and any(
                p.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE) and
                any(f.cursor == p for f, _ in bodies) for p in parents)
            if c.extent.start.offset not in callee_refs or not in_body:
                fn.rewritable = False
                fn.why = fn.why or (f"'{fn.name}' is used other than by direct calls (address "
                                    "taken or called outside the kernels), so it keeps its "
                                    "signature")

    # -- the module --------------------------------------------------------------------------
    def run(self) -> CudaRewrite:
        self._collect(self.ps.tu.cursor)
        if self.checks:
            self._mark_indirect_uses()
            for fn in self.functions:
                body = C.function_body(fn.cursor)
                if fn.kernel and not fn.rewritable:
                    s, e = self.ps.offsets(fn.cursor)
                    a = C.Access(function=fn.name, kind="kernel", status="unchecked",
                                 reason=f"{fn.why}: launched unchecked", start=s,
                                 end=min(e, s + len(fn.name)), array="")
                    a.extra["lineno"] = self.ps.line_col(s)[0]
                    self.accesses.append(a)
                    continue
                if body is not None and fn.cursor.is_definition():
                    FunctionRewriter(self, fn, body).run()
            self._propagate_barriers()
            for fn in self.functions:
                self._signature_edits(fn)
            self._report_methods()
        kernels = [self._kernel_info(fn) for fn in self.functions if fn.kernel]
        barriers = any(k.barriers for k in kernels) or any(f.barriers for f in self.functions)
        if self.checks:
            text = C.apply_edits(self.ps, self.edits, prelude=device_prelude(barriers))
        else:
            text = C.apply_edits(self.ps, [], prelude="")
        return CudaRewrite(source=text, original=self.ps.source, filename=self.ps.filename,
                           checked=self.checks, kernels=kernels, accesses=self.accesses,
                           barriers=barriers, includes=self._includes())

    def _includes(self) -> tuple:
        """Real header files the source includes (their contents go into cache keys)."""
        out = {}
        for inc in self.ps.tu.get_includes():
            path = inc.include.name if inc.include is not None else ""
            if not path or path.startswith("/__safekern__") or path in out:
                continue
            try:
                with open(path, "rb") as f:
                    out[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                continue
        return tuple(sorted(out.items()))

    def _report_methods(self):
        """Member functions (operator[] of a user struct, constructors) are not rewritten;
        their accesses are listed as unchecked."""
        K = self.K
        kinds = (K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION)
        for c, parents in C.walk(self.ps.tu.cursor):
            if c.kind not in kinds or not c.is_definition() or not self.ps.in_main_file(c):
                continue
            body = C.function_body(c)
            if body is None:
                continue
            owner = c.semantic_parent.spelling if c.semantic_parent is not None else ""
            name = f"{owner}::{c.spelling}" if owner else c.spelling
            for node, _ in C.walk(body):
                is_access = node.kind == K.ARRAY_SUBSCRIPT_EXPR or (
                    node.kind == K.UNARY_OPERATOR and C.unary_op(self.ps, node) == "*")
                if is_access:
                    s, e = self.ps.offsets(node)
                    a = C.Access(function=name, kind="subscript", status="unchecked",
                                 reason="inside a member function, which safekern does not "
                                 "rewrite", start=s, end=e, array="")
                    a.extra["lineno"] = self.ps.line_col(s)[0]
                    self.accesses.append(a)

    def _propagate_barriers(self):
        changed = True
        while changed:
            changed = False
            for fn in self.functions:
                if not fn.barriers and any(c.barriers for c in fn.calls):
                    fn.barriers = changed = True

    def _kernel_info(self, fn: Function) -> KernelInfo:
        params = [ParamInfo(p.spelling, p.type.spelling, _is_pointer_type(p.type))
                  for p in fn.params]
        mangled = ""
        if not fn.template:
            mangled = fn.name if fn.extern_c else (fn.cursor.mangled_name or fn.name)
        lineno = self.ps.line_col(fn.cursor.location.offset)[0]
        return KernelInfo(name=fn.name, qualified=fn.qualified, extern_c=fn.extern_c,
                          template=fn.template, mangled=mangled, params=params, lineno=lineno,
                          barriers=fn.barriers, checked=self.checks and fn.rewritable)

    # -- signatures and preludes -------------------------------------------------------------
    def _param_list(self, decl):
        """(open paren offset, close paren offset, has params, void-only range or None)."""
        ps = self.ps
        name_at = decl.location.offset
        tok = ps.next_token(name_at)
        # Skip the name and explicit template arguments up to the parameter list's '('.
        depth = 0
        while tok is not None:
            if tok[2] == "<":
                depth += 1
            elif tok[2] == ">":
                depth -= 1
            elif tok[2] == "(" and depth <= 0:
                break
            tok = ps.next_token(tok[1])
        if tok is None:
            raise ps.error("cannot find the parameter list of this function", name_at,
                           cls=UnsupportedError)
        open_at = tok[0]
        params = self._params(decl)
        if params:
            end = params[-1].extent.end.offset
            close = ps.next_token(end)
            while close is not None and close[2] != ")":
                close = ps.next_token(close[1])
            return open_at, close[0], True, None
        nxt = ps.next_token(tok[1])
        if nxt is not None and nxt[2] == "void":
            after = ps.next_token(nxt[1])
            return open_at, after[0], False, (nxt[0], nxt[1])
        return open_at, nxt[0], False, None

    def _signature_edits(self, fn: Function):
        if not fn.rewritable:
            return
        for decl in fn.decls:
            open_at, close_at, has_params, void_range = self._param_list(decl)
            idx = fn.pointer_indexes
            if fn.kernel:
                hidden = [f"long long __sk_bytes_{i}" for i in idx] + ["long long* __sk_fb"]
                text = ", ".join(hidden)
                if void_range:
                    self.edits.append(C.replace(void_range[0], void_range[1], text))
                else:
                    self.edits.append(C.insert_before(close_at,
                                                      (", " if has_params else "") + text, 0))
            else:
                hidden = ["long long* __sk_fb"]
                for i in idx:
                    hidden += [f"const volatile void* __sk_base_{i}", f"long long __sk_bytes_{i}"]
                text = ", ".join(hidden)
                if void_range:
                    self.edits.append(C.replace(void_range[0], void_range[1], text))
                else:
                    self.edits.append(C.insert_after(open_at + 1,
                                                     text + (", " if has_params else ""), 0))
        if fn.kernel and fn.cursor.is_definition():
            body = C.function_body(fn.cursor)
            pre = ["if (__sk_enter_sync(__sk_fb)) return;" if fn.barriers
                   else "if (__sk_enter(__sk_fb)) return;"]
            for i in sorted(fn.orig_params):
                name = fn.params[i].spelling
                pre.append(f"const volatile void* const __sk_orig_{i} = {name};")
            for i in sorted(fn.count_params):
                name = fn.params[i].spelling
                pre.append(f"const long long __sk_n_{i} = __sk_count(__sk_bytes_{i}, "
                           f"(long long)sizeof(*{name}));")
            self.edits.append(C.insert_after(body.extent.start.offset + 1, " ".join(pre), 0))


class FunctionRewriter:
    """Analysis and edits of one function body."""

    def __init__(self, mod: ModuleRewriter, fn: Function, body):
        self.mod = mod
        self.ps = mod.ps
        self.K = mod.K
        self.fn = fn
        self.body = body
        self.param_index = {p.hash: i for i, p in enumerate(fn.params)}
        self.local_roots: dict[int, object] = {}
        self.modified_params: set[int] = set()
        self.arrays: dict[int, Root] = {}
        self.checked = fn.rewritable
        self.uncheck_reason = "" if fn.rewritable else fn.why

    # -- roots -------------------------------------------------------------------------------
    def run(self):
        self._scan_declarations()
        self._solve_local_roots()
        self.visit(self.body, 0, {})

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

    # -- the walk ----------------------------------------------------------------------------
    def visit(self, c, depth, ctx):
        K = self.K
        kind = c.kind
        if kind == K.CXX_UNARY_EXPR:
            return        # sizeof / alignof: not evaluated
        if kind == K.LAMBDA_EXPR:
            return self._lambda(c, depth, ctx)
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            return self.subscript(c, depth, ctx, access=True)
        if kind == K.UNARY_OPERATOR:
            op = self._unary(c)
            kids = C.children(c)
            if op == "?" and kids:
                s, e = self.ps.offsets(c)
                self._record("deref", "unchecked", "inside a macro expansion", s, e,
                             array=self.ps.text(c))
            if op == "*" and kids:
                return self.deref(c, kids[0], depth, ctx)
            if op == "&" and kids:
                inner = C.strip(kids[0])
                if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                    return self.subscript(inner, depth + 1, ctx, access=False)
        if kind == K.MEMBER_REF_EXPR:
            return self.member(c, depth, ctx)
        if kind == K.CALL_EXPR:
            opcall = operator_call(c)
            if opcall is not None and len(opcall[1]) == 1 and opcall[0] in ("&", "*"):
                operand = opcall[1][0]
                if opcall[0] == "*":
                    return self.deref(c, operand, depth, ctx)
                inner = C.strip(operand)
                if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                    return self.subscript(inner, depth + 1, ctx, access=False)
                return self.visit(operand, depth + 1, ctx)
            if opcall is not None:
                if opcall[0] == "[]" and opcall[1]:
                    s, e = self.ps.offsets(c)
                    self._record("subscript", "unchecked",
                                 "operator[] of a class (e.g. CuPy's CArray): its own code "
                                 "decides", s, e, array=self.ps.text(opcall[1][0]))
                for ch in opcall[1]:
                    self.visit(ch, depth + 1, ctx)
                return
            return self.call(c, depth, ctx)
        if kind.name in ("ASM_STMT", "GCC_ASM_STMT", "MS_ASM_STMT"):
            text = self.ps.text(c)
            if _ASM_BARRIER.search(text):
                raise self._reject(c, "a barrier in inline PTX cannot be made barrier-safe "
                                   "(a failing thread could not release it); use "
                                   "__syncthreads()")
        for ch in c.get_children():
            self.visit(ch, depth + 1, ctx)

    def _unary(self, c) -> str:
        """The operator of a UNARY_OPERATOR; inside a macro expansion (no tokens to read) a
        dereference is told by its types, and "?" means one that cannot be edited."""
        op = C.unary_op(self.ps, c)
        kids = C.children(c)
        if op or not kids:
            return op
        operand_t = C.strip(kids[0]).type
        if _is_pointer_type(operand_t) or _is_array_type(operand_t):
            pointee = operand_t.get_pointee() if _is_pointer_type(operand_t) else None
            if pointee is not None and pointee.get_canonical().spelling.replace(
                    "const ", "") == c.type.get_canonical().spelling.replace("const ", ""):
                return "?"
        return ""

    def _lambda(self, c, depth, ctx):
        s, _ = self.ps.offsets(c)
        toks = self.ps.tokens_between(s, s + 64)
        default = len(toks) >= 2 and toks[0][2] == "[" and toks[1][2] in ("=", "&") and \
            len(toks) >= 3 and toks[2][2] in ("]", ",")
        inner = dict(ctx)
        if not default:
            inner["unchecked"] = ("inside a lambda without a capture default ([=] or [&]), "
                                  "which cannot see safekern's sizes")
        for ch in c.get_children():
            self.visit(ch, depth + 1, inner)

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

    def _record(self, kind, status, reason, start, end, *, array="", axis=None, index=None,
                extent=None):
        a = C.Access(function=self.fn.name, kind=kind, status=status, reason=reason,
                     start=start, end=end,
                     index_start=index[0] if index else -1, index_end=index[1] if index else -1,
                     array=array, axis=axis, extent=extent)
        lineno, _, _ = a.location(self.ps)
        a.extra["lineno"] = lineno
        if status == "checked":
            site = a.site(self.ps, BACKEND)
            a.extra["code"] = site.code
        self.mod.accesses.append(a)
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
        base, index = self._split_subscript(c)
        s, e = self.ps.offsets(c)
        if base is None:
            if access:
                self._record("subscript", "unchecked",
                             "the subscripted expression's type is not known (template-"
                             "dependent or not a pointer)", s, e, array=self.ps.text(c))
            for ch in c.get_children():
                self.visit(ch, depth + 1, ctx)
            return
        b = C.strip(base)
        if _is_array_type(b.type) or (b.kind == self.K.ARRAY_SUBSCRIPT_EXPR and
                                      _is_array_type(b.type)):
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
            base, index = self._split_subscript(node)
            if base is None:
                return chain, None
            chain.append((node, index))
            b = C.strip(base)
            if b.kind == self.K.ARRAY_SUBSCRIPT_EXPR and _is_array_type(b.type):
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
        root = self.root_of(arr, c.extent.start.offset) if b.kind == K.DECL_REF_EXPR else None
        name = b.spelling if b.kind == K.DECL_REF_EXPR else self.ps.text(arr)
        for axis, (sub, idx) in enumerate(reversed(chain)):
            # The type of the expression being subscripted at this axis.
            sub_base, _ = self._split_subscript(sub)
            arr_t = _array_type(C.strip(sub_base).type)
            if access:
                self._check_axis(sub, idx, axis, arr_t, name, root, b, depth + levels - axis,
                                 ctx)
            self.visit(idx, depth + levels - axis + 1, ctx)

    def _extent_expr(self, arr_t, axis, name, root, b):
        """A C expression for the extent of `axis`, and its constant value if known."""
        size = arr_t.get_array_size() if _type_kind(arr_t) == "CONSTANTARRAY" else -1
        if size >= 0:
            return str(size), size
        if root is not None and not isinstance(root, Unknown) and root.kind == "extern" and \
                axis == 0:
            return f"(__sk_dynsmem() / (long long)sizeof({name}[0]))", None
        if _type_kind(arr_t) == "DEPENDENTSIZEDARRAY" and b.kind == self.K.DECL_REF_EXPR:
            outer = name + "[0]" * axis
            return f"(long long)(sizeof({outer}) / sizeof({outer}[0]))", None
        return None, None

    def _check_axis(self, sub, idx, axis, arr_t, name, root, b, depth, ctx):
        s, e = self.ps.offsets(sub)
        i0, i1 = self.ps.offsets(idx)
        reason = self._unchecked_ctx(ctx)
        if reason:
            self._record("subscript", "unchecked", reason, s, e, array=name, axis=axis,
                         index=(i0, i1))
            return
        if isinstance(root, Unknown):
            self._record("subscript", "unchecked", root.reason, s, e, array=name, axis=axis,
                         index=(i0, i1))
            return
        extent, const = self._extent_expr(arr_t, axis, name, root, b)
        if extent is None:
            self._record("subscript", "unchecked", f"the extent of axis {axis} of '{name}' is "
                         "not known", s, e, array=name, axis=axis, index=(i0, i1))
            return
        value = C.evaluate_int(idx)
        if const is not None and value is not None and 0 <= value < const:
            self._record("subscript", "safe", f"constant index {value} < {const}", s, e,
                         array=name, axis=axis, index=(i0, i1), extent=const)
            return
        if not self._bracketed(i0, i1):
            self._record("subscript", "unchecked", "inside a macro expansion", s, e,
                         array=name, axis=axis, index=(i0, i1))
            return
        a = self._record("subscript", "checked", "", s, e, array=name, axis=axis,
                         index=(i0, i1), extent=const)
        self.mod.edits.append(C.insert_before(i0, "__sk_ix(", depth))
        self.mod.edits.append(C.insert_after(
            i1, f", {extent}, {a.extra['code']:#x}ULL, {axis}, __sk_fb)", depth))

    def _pointer_subscript(self, c, base, index, depth, ctx):
        K = self.K
        s, e = self.ps.offsets(c)
        b = C.strip(base)
        bs, be = self.ps.offsets(base)
        i0, i1 = self.ps.offsets(index)
        name = self.ps.text(base)
        reason = self._unchecked_ctx(ctx)
        root = self.root_of(base, s) if not reason else None
        if reason or root is None or isinstance(root, Unknown):
            why = reason or (root.reason if root is not None else "a null pointer")
            self._record("subscript", "unchecked", why, s, e, array=name, axis=0,
                         index=(i0, i1))
        else:
            swapped = bs > i0
            fast = (root.kind == "kparam" and b.kind == K.DECL_REF_EXPR and
                    root.base == b.spelling and not swapped)
            open_tok = self.ps.next_token(min(be, i1))
            close_tok = self.ps.next_token(max(be, i1))
            ok = (open_tok is not None and open_tok[2] == "[" and close_tok is not None and
                  close_tok[2] == "]" and close_tok[1] == e and be > bs and i1 > i0 and
                  self._editable(bs, be, i0, i1, open_tok[0], close_tok[0]))
            label = name if root.name == name else f"{name} (in {root.name})"
            if not ok:
                self._record("subscript", "unchecked", "inside a macro expansion", s, e,
                             array=label, axis=0, index=(i0, i1))
            elif fast:
                i = int(root.key[1])
                self.fn.count_params.add(i)
                a = self._record("subscript", "checked", "", s, e, array=name, axis=0,
                                 index=(i0, i1))
                self.mod.edits.append(C.insert_before(i0, "__sk_ix(", depth))
                self.mod.edits.append(C.insert_after(
                    i1, f", __sk_n_{i}, {a.extra['code']:#x}ULL, 0, __sk_fb)", depth))
            else:
                a = self._record("subscript", "checked", "", s, e, array=label, axis=0,
                                 index=(i0, i1))
                first = min(bs, i0)
                self.mod.edits.append(C.insert_before(first, "(*__sk_ptr((", depth))
                self.mod.edits.append(C.replace(open_tok[0], open_tok[1], ") + ("))
                self.mod.edits.append(C.replace(
                    close_tok[0], close_tok[1],
                    f"), {root.base}, {root.size}, {a.extra['code']:#x}ULL, __sk_fb))"))
        for ch in (base, index):
            self.visit(ch, depth + 1, ctx)

    def _wrap_pointer(self, kind, whole, ptr, depth, ctx, *, what=None):
        """Check one element at the pointer expression `ptr` (deref, ->, atomics)."""
        s, e = self.ps.offsets(whole)
        ps_, pe = self.ps.offsets(ptr)
        name = what or self.ps.text(ptr)
        reason = self._unchecked_ctx(ctx)
        root = self.root_of(ptr, s) if not reason else None
        if reason or root is None or isinstance(root, Unknown):
            why = reason or (root.reason if root is not None else "a null pointer")
            self._record(kind, "unchecked", why, s, e, array=name, axis=0, index=(ps_, pe))
        elif not self._wrappable(kind, ps_, pe):
            self._record(kind, "unchecked", "inside a macro expansion", s, e, array=name,
                         axis=0, index=(ps_, pe))
        else:
            label = name if root.name == name else f"{name} (in {root.name})"
            a = self._record(kind, "checked", "", s, e, array=label, axis=0, index=(ps_, pe))
            self.mod.edits.append(C.insert_before(ps_, "__sk_ptr(", depth))
            self.mod.edits.append(C.insert_after(
                pe, f", {root.base}, {root.size}, {a.extra['code']:#x}ULL, __sk_fb)", depth))

    def deref(self, c, operand, depth, ctx):
        o = C.strip(operand)
        if _is_array_type(c.type) or _type_kind(c.type) in ("FUNCTIONPROTO",
                                                             "FUNCTIONNOPROTO"):
            pass    # *tile is a row: an address, not an access
        elif _is_pointer_type(o.type) or _type_kind(o.type) == "POINTER" or \
                _is_array_type(o.type):
            self._wrap_pointer("deref", c, operand, depth + 1, ctx)
        else:
            s, e = self.ps.offsets(c)
            self._record("deref", "unchecked", "the pointer's type is not known "
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

    # -- calls -------------------------------------------------------------------------------
    def _call_name(self, c) -> str:
        """The called function's name, also for calls a template leaves unresolved."""
        K = self.K
        kids = C.children(c)
        if not kids:
            return c.spelling or ""
        callee = C.strip(kids[0])
        if callee.kind == K.DECL_REF_EXPR and callee.spelling:
            return callee.spelling
        for ch in C.walk(callee):
            if ch[0].kind == K.OVERLOADED_DECL_REF and ch[0].spelling:
                return ch[0].spelling
        toks = self.ps.tokens_between(*self.ps.offsets(callee))
        idents = [t[2] for t in toks if t[2].isidentifier() and t[2] != "template"]
        if "<" in [t[2] for t in toks]:
            cut = [t[2] for t in toks].index("<")
            idents = [t[2] for t in toks[:cut] if t[2].isidentifier()]
        return idents[-1] if idents else (c.spelling or "")

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
        name = self._call_name(c)
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
            elif name not in _NO_MEMORY_CALLS:
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
        self.fn.barriers = True
        self.mod.edits.append(C.insert_before(s, "__sk_cg_sync(", depth))
        self.mod.edits.append(C.replace(oe, e, ")"))
        self.visit(obj, depth + 1, {})
        return True

    def _barrier(self, callee, new_name):
        s, e = self.ps.offsets(callee)
        if not self._editable(s, e - 1) or e <= s:
            raise self._reject(callee, "a block barrier inside a macro expansion cannot be "
                               "rewritten; call it directly")
        self.fn.barriers = True
        self.mod.edits.append(C.replace(s, e, new_name))

    def _address_arg(self, call, arg, depth, ctx):
        K = self.K
        a = C.strip(arg)
        name = self._call_name(call)
        opcall = operator_call(a)
        is_addr = (a.kind == K.UNARY_OPERATOR and C.unary_op(self.ps, a) == "&") or (
            opcall is not None and opcall[0] == "&" and len(opcall[1]) == 1)
        if is_addr:
            operand = C.children(a)[0] if opcall is None else opcall[1][0]
            inner = C.strip(operand)
            if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                self.subscript(inner, depth + 2, ctx, access=True)
                return
            if inner.kind == K.DECL_REF_EXPR:
                s, e = self.ps.offsets(arg)
                self._record("atomic", "safe", f"the address of variable '{inner.spelling}'",
                             s, e, array=inner.spelling)
                return
            if inner.kind == K.MEMBER_REF_EXPR:
                self.visit(inner, depth + 2, ctx)
                return
        self._wrap_pointer("atomic", arg, arg, depth + 1, ctx,
                           what=None)
        self.visit(arg, depth + 1, ctx)

    def _foreign_call(self, name, args):
        """Arrays passed to functions this source does not define (headers, CUDA's library)
        are accessed there unchecked: say so."""
        for arg in args:
            a = C.strip(arg)
            if not (_is_pointer_type(a.type) or _is_array_type(a.type)):
                continue
            root = self.root_of(arg, arg.extent.start.offset)
            if root is None or isinstance(root, Unknown) or root.kind == "scalar":
                continue
            s, e = self.ps.offsets(arg)
            self._record("argument", "unchecked",
                         f"passed to '{name or 'a function'}', which is not defined in this "
                         "source: its accesses are not checked", s, e, array=root.name)

    def _user_call(self, c, callee, target: Function, args, ctx):
        self.fn.calls.add(target)
        if not target.rewritable:
            return
        if target.kernel:
            raise self._reject(c, "launching a kernel from device code (dynamic parallelism) "
                               "is not supported by safekern")
        ce = callee.extent.end.offset
        tok = self.ps.next_token(ce)
        if tok is None or tok[2] != "(" or not self._editable(tok[0]):
            raise self._reject(c, f"cannot add safekern's hidden arguments to this call of "
                               f"'{target.name}' (inside a macro expansion?)")
        hidden = ["__sk_fb"]
        for i in target.pointer_indexes:
            arg = args[i] if i < len(args) else None
            root = self.root_of(arg, c.extent.start.offset) if arg is not None else None
            reason = self._unchecked_ctx(ctx)
            if reason or root is None or isinstance(root, Unknown):
                why = reason or (root.reason if root is not None else
                                 "no array is passed (default argument or null)")
                s, e = self.ps.offsets(arg if arg is not None else c)
                pname = target.params[i].spelling if i < len(target.params) else str(i)
                self._record("argument", "unchecked",
                             f"accesses through parameter '{pname}' of '{target.name}' are "
                             f"not checked for this call: {why}", s, e,
                             array=self.ps.text(arg) if arg is not None else pname)
                hidden += ["nullptr", "-1LL"]
            else:
                hidden += [f"(const volatile void*)({root.base})", f"(long long)({root.size})"]
        text = ", ".join(hidden) + (", " if args else "")
        self.mod.edits.append(C.insert_after(tok[1], text, 0))


__all__ = ["ModuleRewriter", "FunctionRewriter", "Root", "Unknown"]
