"""The CUDA checking rewrite: find each function's accesses, then edit the text (see cuda.py).

Analysis first: which user functions exist (kernels, `__device__` functions), what each pointer
points into (its *root*: a kernel parameter, a device-function parameter, an array of known size,
`extern __shared__` memory), and every access. Then the edits: checks at the accesses, hidden
parameters at the signatures and call sites, the kernel preludes, the barrier replacements.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ...errors import UnsupportedError
from ...report import ReportEntry, Status
from . import safety as c_safety, writes as c_writes
from . import parse as C
from . import edits as E
from .cuda_access import CudaWalker
from .cuda_edits import barrier_edits, check_edits, hidden_argument_edits
from .cuda_signatures import signature_edits
from .cuda_calls import call_name
from .cuda_dialect import (ADDRESS_BUILTINS, BARRIERS, CHECKS_OFF_PRELUDE, DIALECT,
                           NO_MEMORY_CALLS, device_prelude, spelling)
from .launch import kernel_predicates
from .module_state import module_state
from .kernel_info import KernelInfo
from .plain import OwnChecks, kernel_codes
from .loop_versions import WORDS as LOOP_WORDS, version_loops
from .model import Access
from .param_info import ParamInfo
from .rewrite_result import Rewrite
from .provenance import is_pointer_type, operator_call


# -- the rewrite -------------------------------------------------------------------------------


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
    #: needs the hidden state (its body checks something, or calls a function that does);
    #: a device function that does not keeps its signature, and its calls stay as written --
    #: hidden parameters nobody uses only break overloads, templates and defaults
    needs_hidden: bool = True
    count_params: set = field(default_factory=set)    # kernel params with a fast count
    orig_params: set = field(default_factory=set)     # kernel params reassigned in the body
    fields: dict = field(default_factory=dict)        # (param, offset) -> FieldParam

    @property
    def field_params(self) -> list:
        """The struct pointer fields with a hidden extent, in the order the launch passes."""
        return [self.fields[k] for k in sorted(self.fields)]

    @property
    def pointer_indexes(self) -> list[int]:
        return [i for i, p in enumerate(self.params) if is_pointer_type(p.type)]


class ModuleRewriter:
    def __init__(self, ps, *, checks: bool = True, kernel_asserts: bool = True, options=(),
                 eliminate: bool = True, launch_predicates: bool = False,
                 assume=frozenset()):
        self.ps = ps
        self.checks = checks
        self.launch_predicates = launch_predicates and eliminate and not assume
        self.assume = frozenset(assume)      # failure codes a launch variant leaves out
        self.launch: dict = {}               # Function -> KernelPredicates
        self.kernel_asserts = kernel_asserts
        self.eliminate = eliminate          # False: nothing is 'safe' (SAFEKERN_ELIMINATE=0)
        self.ndebug_from = c_safety.ndebug_from(ps, options)
        self.spelling = spelling()
        self.K = C.kinds()
        self.edits: list[E.Edit] = []
        self.hidden_args: list = []            # model.HelperCall: calls' hidden arguments
        self.accesses: list[Access] = []
        self.safety: list = []                 # c_safety.SafetySite: asserts and divisions
        self.failure_sites: list = []          # of the checked accesses (CudaWalker)
        self.writes: dict = {}                 # Function -> c_writes.Writes
        self.functions: list[Function] = []
        self.by_location: dict[int, Function] = {}
        self.by_name: dict[str, list[Function]] = {}
        self.own: dict = {}                    # Function -> plain.OwnChecks
        self.plain_codes: dict = {}            # kernel Function -> plain.kernel_codes

    # -- collecting functions ----------------------------------------------------------------
    def _collect(self, cursor, namespaces=(), extern_c=False):
        K = self.K
        top = cursor.kind == K.TRANSLATION_UNIT
        for ch in self.ps.main_top() if top else C.kids(cursor):
            if not self.ps.in_main_file(ch):
                continue
            if ch.kind == K.NAMESPACE:
                self._collect(ch, namespaces + (ch.spelling,), extern_c)
            elif ch.kind == K.LINKAGE_SPEC:
                self._collect(ch, namespaces, True)
            elif ch.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
                attrs = {a.kind for a in C.kids(ch)}
                kernel = DIALECT.is_kernel(ch)     # (also one launched from device code)
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
        return [c for c in C.kids(fn_cursor) if c.kind == self.K.PARM_DECL]

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
        for c, parents in C.walk_main(self.ps):
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
    def run(self) -> Rewrite:
        self._collect(self.ps.tu.cursor)
        state = module_state(self.ps)   # a variant (a module of its own) would not share it
        if self.checks:
            self._mark_indirect_uses()
            for fn in self.functions:
                body = C.function_body(fn.cursor)
                if fn.kernel and not fn.rewritable:
                    s, e = self.ps.offsets(fn.cursor)
                    a = Access(function=fn.name, kind="kernel", status=Status.UNCHECKED,
                                 reason=f"{fn.why}: launched unchecked", start=s,
                                 end=min(e, s + len(fn.name)), array="")
                    a.extra["filename"], a.extra["lineno"] = a.place(self.ps)[:2]
                    self.accesses.append(a)
                    continue
                if body is not None and fn.cursor.is_definition():
                    first, first_edit = len(self.accesses), len(self.edits)
                    first_safety = len(self.safety)
                    walk = CudaWalker(self, fn, body).walk(body, fn.cursor.location.offset)
                    self._take(fn, walk)
                    # the rewrite of what the walk found: the checks, asserts and divisions
                    checks, indexes = check_edits(walk.accesses, kernel=fn.kernel)
                    self.edits += checks
                    self.edits += barrier_edits(walk.barriers)
                    self.edits += walk.safety.edits
                    self.safety += walk.safety.sites
                    self.own[fn] = self._own_checks(first, first_safety)
                    if self.eliminate:      # loop_versions.py: checks out of loops
                        with self._located(fn):
                            versioned = version_loops(self.ps, body, self.edits[first_edit:],
                                                      indexes, LOOP_WORDS["cuda"])
                        self.edits += versioned.edits
                        if versioned.wide:      # the checked copies' 64-bit checks
                            self.edits = [versioned.wide.get(id(e), e) for e in self.edits]
                        for a, why in versioned.hoisted:
                            a.extra["hoisted"] = why       # the report says so (_entries)
                    if self.launch_predicates and not state and fn.kernel and not fn.template:
                        with self._located(fn):     # launch.py: what launches may prove
                            self.launch[fn] = kernel_predicates(self.ps, fn.cursor, "cuda", [
                                (a, a.extra["code"], a.check.launch_extent)
                                for a in self.accesses[first:] if a.status == Status.CHECKED
                                and a.check.launch_extent is not None],
                                fields=sorted(fn.fields))
                    with self._located(fn):
                        self.writes[fn] = self._writes(walk, body)
                    fn.needs_hidden = any("__sk_" in e.text for e in self.edits[first_edit:])
            self._propagate_barriers()
            self._propagate_needs()
            self.plain_codes = kernel_codes([f for f in self.functions if f.kernel],
                                            self.own, lambda f: f.calls)
            self.edits += hidden_argument_edits(self.ps, self.hidden_args)
            c_writes.solve(self.writes)
            for fn in self.functions:
                with self._located(fn):
                    self._signature_edits(fn)
            self._report_methods()
        kernels = []
        for fn in self.functions:
            if fn.kernel:
                with self._located(fn):
                    kernels.append(self._kernel_info(fn))
        barriers = any(k.barriers for k in kernels) or any(f.barriers for f in self.functions)
        if self.checks:
            text = E.apply_edits(self.ps, self.edits, prelude=device_prelude(barriers))
        else:
            uses = "SAFEKERN_ASSERT" in self.ps.source
            text = E.apply_edits(self.ps, [], prelude=CHECKS_OFF_PRELUDE if uses else "")
        return Rewrite(assumed=tuple(sorted(self.assume)), state=state,
                       source=text, original=self.ps.user_text, filename=self.ps.filename,
                       checked=self.checks, kernels=kernels, accesses=self.accesses,
                       entries=self._entries(), barriers=barriers, includes=self._includes(),
                       safety=self.safety, failure_sites=self.failure_sites + [
                           s.failure for s in self.safety if s.status == Status.CHECKED])

    def _take(self, fn: Function, walk):
        """What the walk of `fn` found (model.FunctionFacts, cuda_access.CudaWalker): its
        records join the module's, and what it tells of `fn` goes on `fn`."""
        self.accesses += walk.accesses
        self.failure_sites += walk.failure_sites
        self.hidden_args += walk.calls
        fn.calls |= walk.callees
        fn.count_params |= walk.count_params
        fn.barriers = fn.barriers or bool(walk.barriers)
        fn.fields.update(walk.fields)      # their extents: hidden parameters
        # the kernel's prologue saves the entry value of the moved parameters that a root
        # names (__sk_orig_i)
        fn.orig_params |= walk.moved

    def _entries(self) -> list:
        """The report: every access, asserts and divisions included, in source order."""
        data = self.ps.user_text.encode("utf-8")
        entries = []
        for a in self.accesses:
            line_start = data.rfind(b"\n", 0, a.start) + 1
            col = len(data[line_start:a.start].decode("utf-8", "replace"))
            text = " ".join(data[a.start:a.end].decode("utf-8", "replace").split())
            predicate = a.extra.get("predicate", "")
            status, reason = a.reported()
            entries.append((a.start, ReportEntry(a.function, a.extra.get("lineno") or 0, col,
                                                 text, a.array, status, reason,
                                                 code=a.extra.get("code"),
                                                 predicate=predicate,
                                                 filename=self._other_file(a))))
        entries += [(s.start, s.entry()) for s in self.safety]
        return [e for _, e in sorted(entries, key=lambda pair: pair[0])]

    def _other_file(self, a) -> str:
        """The file a report entry names where a `#line` of the source moved it elsewhere."""
        name = a.extra.get("filename") or self.ps.filename
        return "" if name == self.ps.filename else name

    def _own_checks(self, first: int, first_safety: int) -> OwnChecks:
        """What the function just walked records (plain.py): its accesses from `first`, its
        asserts and divisions from `first_safety`."""
        own = OwnChecks()
        for a in self.accesses[first:]:
            own.add(a.extra.get("code"), a.status == Status.CHECKED)
        for s in self.safety[first_safety:]:
            own.add(s.code, s.status == Status.CHECKED, s.kind)
        return own

    def _located(self, fn: Function, current=None):
        """Where a pass over `fn` is: an unexpected exception in it names the function and
        its line, or the line of the node `current()` returns (parse.ParsedSource.located)."""
        return self.ps.located(fn.name, fn.cursor.location.offset, current)

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
        for c, parents in C.walk_main(self.ps):
            if c.kind not in kinds or not c.is_definition() or not self.ps.in_main_file(c):
                continue
            body = C.function_body(c)
            if body is None:
                continue
            owner = c.semantic_parent.spelling if c.semantic_parent is not None else ""
            name = f"{owner}::{c.spelling}" if owner else c.spelling
            with self.ps.located(name, c.location.offset):
                self._report_method(name, body)

    def _report_method(self, name, body):
        K = self.K
        for node, _ in C.walk(body):
            is_access = node.kind == K.ARRAY_SUBSCRIPT_EXPR or (
                node.kind == K.UNARY_OPERATOR and C.unary_op(self.ps, node) == "*")
            if is_access:
                s, e = self.ps.offsets(node)
                a = Access(function=name, kind="subscript", status=Status.UNCHECKED,
                           reason="inside a member function, which safekern does not rewrite",
                           start=s, end=e, array="")
                a.extra["filename"], a.extra["lineno"] = a.place(self.ps)[:2]
                self.accesses.append(a)

    def _propagate_needs(self):
        """A function needs the hidden state when one it calls does (to pass it on)."""
        changed = True
        while changed:
            changed = False
            for fn in self.functions:
                if not fn.needs_hidden and any(t.needs_hidden and t.rewritable
                                               for t in fn.calls):
                    fn.needs_hidden = changed = True

    def _propagate_barriers(self):
        changed = True
        while changed:
            changed = False
            for fn in self.functions:
                if not fn.barriers and any(c.barriers for c in fn.calls):
                    fn.barriers = changed = True

    def _kernel_info(self, fn: Function) -> KernelInfo:
        params = [ParamInfo.of(p, i, DIALECT) for i, p in enumerate(fn.params)]
        for p in params:
            p.cursor = None     # plain data only: a cursor would keep the parse alive
        mangled = ""
        if not fn.template:
            mangled = fn.name if fn.extern_c else (fn.cursor.mangled_name or fn.name)
        lineno = self.ps.place(fn.cursor.location.offset)[1]
        stores = self.writes.get(fn, c_writes.Writes())
        return KernelInfo(name=fn.name, qualified=fn.qualified, extern_c=fn.extern_c,
                          template=fn.template, mangled=mangled, params=params, lineno=lineno,
                          barriers=fn.barriers, checked=self.checks and fn.rewritable,
                          written=tuple(p.name for p in params
                                        if p.is_pointer and p.index in stores.params),
                          writes_unknown=stores.unknown, launch=self.launch.get(fn),
                          codes=self.plain_codes.get(fn) if self.checks and fn.rewritable
                          else None,
                          fields=tuple(fn.field_params) if self.checks and fn.rewritable
                          else ())

    def _writes(self, walk, body) -> c_writes.Writes:
        """The pointer parameters one function stores through (before its callees')."""
        def resolve(expr):
            return walk.param_of(expr, expr.extent.start.offset)

        def callee_of(call):
            try:
                return self._resolve(call, call_name(self.ps, call))
            except UnsupportedError:
                return None

        def access_of(name, args):
            if name in ADDRESS_BUILTINS:
                how = c_writes.READ if name.startswith("__ld") else c_writes.WRITE
                return [(args[0], how)] if args else []
            if name in NO_MEMORY_CALLS or name in BARRIERS:
                return []
            if name in ("memcpy", "memmove", "memset") and args:
                return [(args[0], c_writes.WRITE)]
            return None

        return c_writes.scan(self.ps, body, resolve=resolve, callee_of=callee_of,
                             access_of=access_of, operator_of=operator_call)

    # -- signatures and preludes (cuda_signatures.py) ----------------------------------------
    def _signature_edits(self, fn: Function):
        self.edits += signature_edits(self, fn)


__all__ = ["ModuleRewriter", "Function"]
