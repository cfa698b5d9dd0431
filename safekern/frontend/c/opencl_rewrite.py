"""The checking rewrite of an OpenCL C program (opencl.py's `rewrite` parses, then runs this).

For each function definition: its accesses (checks.py), its asserts and divisions (safety.py),
where a failing work-item goes (exits.py), which pointer parameters it writes (writes.py); then
the edits: checks, hidden parameters and arguments, the kernels' prologues. What comes back is
plain data: the checked text, the kernels as the launch needs them, the report and the failure
sites.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...errors import UnsupportedError
from ...report import ReportEntry, Status
from . import edits as E, opencl_safety, parse as C, safety as c_safety, writes as c_writes
from .access_check import counted_params
from .checks import analyse_function
from .exits import ControlPlan, build_tree, find_anchor
from .launch import kernel_predicates
from .model import call_failure_site
from .opencl_unedited import leave_unchecked, unedited_functions
from .opencl_edits import access_edits, call_edits, extent_text, precheck_text
from .prechecks import PrecheckFinder, holds_group_calls
from .kernel_info import KernelInfo
from .loop_versions import WORDS as LOOP_WORDS, Versioned, version_loops
from .param_info import params_of
from .rewrite_result import Rewrite
from .module_state import program_state
from .plain import OwnChecks, kernel_codes


@dataclass
class _Output:
    """What the functions' rewrites add up to."""

    edits: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    accesses: list = field(default_factory=list)
    sites: list = field(default_factory=list)
    report: list = field(default_factory=list)


class ProgramRewriter:
    def __init__(self, ps: C.ParsedSource, dialect, kernel_asserts=True,
                 eliminate=True, launch_predicates=False, assume=frozenset(), unchecked=None):
        self.ps = ps
        self.dialect = dialect
        self.kernel_asserts = kernel_asserts
        self.eliminate = eliminate
        self.launch_predicates = launch_predicates and eliminate
        self.assume = frozenset(assume)      # failure codes this variant leaves out
        self.launch = {}                     # kernel name -> KernelPredicates
        self.own: dict = {}                  # function name -> plain.OwnChecks
        self.counted: set = set()            # helpers that take the group's counts (run)
        self._body_calls = None              # non-kernel function -> names its body calls
        self.fns = C.functions(ps)
        self.kernel_names = {f.spelling for f in self.fns if dialect.is_kernel(f)}
        # functions a macro writes (and what they call): compiled as written, unchecked
        # (`unchecked`: name -> why, functions whose barriers cannot be kept safe: opencl.py)
        self.unchecked = dict(unchecked or {})
        self.unedited = unedited_functions(ps, self.fns, self.kernel_names, self.unchecked)
        self.edited = [f for f in self.fns if f.spelling not in self.unedited]
        self.helpers = {f.spelling: params_of(f, dialect) for f in self.edited
                        if f.spelling not in self.kernel_names}

    def run(self) -> Rewrite:
        ps = self.ps
        # The analysis of each function runs located (checks.analyse_function); so does each
        # later pass over a function (self._located): an unexpected exception names it.
        facts = {f.spelling: analyse_function(ps, f, self.dialect,
                                              is_kernel=f.spelling in self.kernel_names,
                                              helpers=self.helpers, eliminate=self.eliminate)
                 for f in self.fns}
        for name, why in self.unedited.items():
            leave_unchecked(facts[name], why)
        self._reject_kernel_calls()
        if self.launch_predicates or self.assume:
            for f in self.edited:
                if f.spelling in self.kernel_names:
                    with self._located(f):
                        self._launch_predicates(f, facts[f.spelling])
        # helpers (those left as written too: their callers' calls are barrier points all
        # the same) that hold a barrier, or a group collective: their callers get no precheck
        barrier_helpers = self._group_closure(facts, lambda fa: bool(fa.barriers))
        self.grouped = self._group_closure(facts, lambda fa: holds_group_calls(
            fa.cursor, self.dialect.barrier_functions))
        safety = {}
        for f in self.edited:
            with self._located(f):
                safety[f.spelling] = self._safety(f, facts[f.spelling], barrier_helpers)
        failing = self._closure(facts, lambda fa: bool(fa.checked or
                                                       safety[fa.name].checked))
        # helpers with barriers that can fail: the group's counts go in and out (exits.py)
        self.counted = barrier_helpers & failing
        writes = self._writes(facts)
        out = _Output()
        for f in self.fns:
            if f.spelling in self.unedited:
                out.accesses += facts[f.spelling].accesses
                out.report += self._unedited_report(f, facts[f.spelling])
                continue
            with self._located(f):
                self._rewrite_function(f, facts[f.spelling], safety[f.spelling], writes,
                                       barrier_helpers, failing, out)
        calls = {name: [c.callee for c in fa.calls if c.callee in self.helpers]
                 for name, fa in facts.items()}
        by_name = {k.name: k for k in out.kernels}
        for name, codes in kernel_codes(list(by_name), self.own, calls.get).items():
            by_name[name].codes = codes
        text = E.apply_edits(ps, out.edits, prelude=self.dialect.prelude())
        return Rewrite(text, ps.user_text, ps.filename, kernels=out.kernels,
                       accesses=out.accesses, entries=out.report, failure_sites=out.sites,
                       barriers=any(k.barriers for k in out.kernels),
                       state=program_state(ps),
                       unchecked_functions=tuple(self.unchecked.items()))

    def _launch_predicates(self, f, fa):
        """The launch predicates of a kernel's checks (launch.py); in a variant (`assume`),
        the checks they prove are left out."""
        sites = []
        for a in fa.checked:
            extent = a.check.launch_extent
            if a.kind not in ("subscript", "vector") or extent is None:
                continue
            sites.append((a, a.failure_site(self.ps, "opencl").code, extent))
        self.launch[f.spelling] = kernel_predicates(self.ps, f, "opencl", sites)
        for a, code, _ in sites:
            if code in self.assume and a.extra.get("predicate"):
                a.status, a.reason = Status.ELIMINATED, "proven at launch (launch variant)"

    def _located(self, fn):
        """Where a pass over `fn` is (parse.ParsedSource.located): its name and line."""
        return self.ps.located(fn.spelling, fn.location.offset)

    def _rewrite_function(self, f, fa, checks, writes, barrier_helpers, failing, out):
        """The edits, report entries, failure sites and kernel facts of one function."""
        ps = self.ps
        is_kernel = f.spelling in self.kernel_names
        codes, site_codes = {}, {}
        for a in fa.checked:
            site = a.failure_site(ps, "opencl")
            out.sites.append(site)
            codes[id(a)] = self._code_text(site.code, is_kernel)
            site_codes[id(a)] = site.code
        edits, indexes = access_edits(ps, fa, codes)
        out.sites += self._call_sites(f, fa, is_kernel)
        edits += call_edits(ps, fa, self.counted,
                            self.dialect.helper_barrier_arguments(in_kernel=is_kernel))
        own = self.own[f.spelling] = OwnChecks()     # (plain.py)
        for a in fa.checked:
            own.add(site_codes[id(a)], a.status == Status.CHECKED)
        for s in checks.sites:
            own.add(s.code, s.status == Status.CHECKED, s.kind)
        failure_offsets = [a.start for a in fa.checked] + \
            [self.ps.offsets(c.cursor)[0] for c in fa.calls if c.callee in failing]
        collectives = self._collective_calls(f, barrier_helpers)
        barrier_calls = list(fa.barriers) + collectives
        # loop_versions.py: checks out of loops; a fast copy's failures are recorded after
        # its loop, so the exit test goes after each versioned loop
        safety_edits = list(checks.edits)
        versioned = self._versions(f, edits + safety_edits, indexes)
        pre = self._prechecks(f, fa, is_kernel, failing, checks, versioned, codes)
        if pre:
            # the prechecked accesses are left unchecked in their expressions and no longer
            # set the flag: their statements' flag tests go where nothing else fails
            gone = {id(p.access) for p in pre}
            dropped = {id(e) for ix in indexes if id(ix.access) in gone
                       for e in (ix.open, ix.close)}
            edits = [e for e in edits if id(e) not in dropped]
            failure_offsets = [a.start for a in fa.checked if id(a) not in gone] + \
                [self.ps.offsets(c.cursor)[0] for c in fa.calls if c.callee in failing]
        before, tests = [], set()
        for p in pre:
            # a statement's second test of one variable against one extent cannot fail where
            # its first passed (the statement does not assign it): only the first is written
            key = (p.node.start, p.var, extent_text(p.access.check))
            if key not in tests:
                tests.add(key)
                before.append((p.node.start, precheck_text(p.access.check, p.var,
                                                           codes[id(p.access)])))
        plan, control = self._control(f, is_kernel, barrier_calls, collectives,
                                      failure_offsets + versioned.starts, checks, before)
        if versioned.starts and checks.edits != safety_edits:
            # divisions left unchecked (_control) after the loops were versioned: not again
            versioned = Versioned()
            plan, control = self._control(f, is_kernel, barrier_calls, collectives,
                                          failure_offsets, checks, before)
        for a, why in versioned.hoisted:
            a.extra["hoisted"] = why       # the report says so (_report)
        failure_offsets += [s.start for s in checks.checked] + versioned.starts
        out.edits += edits + versioned.edits + control + checks.edits
        out.sites += checks.failure_sites
        out.accesses += fa.accesses
        out.report.extend(sorted(self._report(fa, site_codes) +
                                 [s.entry() for s in checks.sites],
                                 key=lambda r: (r.lineno, r.col)))
        out.edits += self._signature_edits(f, fa, is_kernel)
        # Any barrier: the group decides together whether a failure is pending.
        # (__sk_fp, the flag, also goes to every helper it calls: a kernel whose checks a
        # launch variant left out still passes it)
        out.edits += self._prologue_edits(f, fa, is_kernel, plan.has_barriers,
                                          bool(failure_offsets or fa.calls))
        if is_kernel:
            # Plain data only: libclang cursors would keep the whole parse alive.
            params = [replace(p, cursor=None) for p in fa.params]
            stores = writes[f.spelling]
            out.kernels.append(KernelInfo(
                f.spelling, params, ps.place(f.location.offset)[1], plan.barrier_mode,
                written=tuple(p.name for p in params
                              if p.is_pointer and p.index in stores.params),
                writes_unknown=stores.unknown, launch=self.launch.get(f.spelling)))

    def _code_text(self, code: int, is_kernel: bool) -> str:
        """The C text of a failure code in a kernel, or in a helper: XOR the call chain its
        caller passes (call_chains.py), so that a failure names the calls that led to it.
        A device without 64-bit atomics records 31-bit codes: no room for a chain there."""
        if is_kernel or not self.dialect.int64_atomics:
            return self.dialect.code_literal(code)
        return f"({code:#x}L ^ (long)__sk_cs)"

    def _call_sites(self, f, fa, is_kernel) -> list:
        """The call sites of `f`'s calls of helpers (their codes the chain arguments): a
        failure inside the helper names them."""
        if not self.dialect.int64_atomics:
            return []
        sites = []
        for call in fa.calls:
            kids = C.children(call.cursor)
            s, e = self.ps.offsets(kids[0] if kids else call.cursor)
            site = call_failure_site(self.ps, s, e, "opencl", f.spelling, call.callee,
                                     is_kernel)
            call.chain, call.caller_kernel = site.code, is_kernel
            sites.append(site)
        return sites

    def _versions(self, f, edits, indexes) -> Versioned:
        """The counted loops of `f` whose affine checks run once before the loop."""
        if not self.eliminate:
            return Versioned()
        with self._located(f):
            return version_loops(self.ps, C.function_body(f), edits, indexes,
                                 LOOP_WORDS["opencl"])

    def _writes(self, facts) -> dict:
        """Name -> c_writes.Writes: the pointer parameters each function stores through,
        its helpers' stores included."""
        out = {}
        for f in self.fns:
            fa = facts[f.spelling]
            with self._located(f):
                out[f.spelling] = c_writes.scan(
                    self.ps, C.function_body(f), resolve=fa.param_of,
                    callee_of=lambda call: C.called_name(call) if C.called_name(call) in
                    self.helpers else None,
                    access_of=self.dialect.memory_access)
        return c_writes.solve(out)

    def _safety(self, fn, fa, barrier_helpers) -> c_safety.SafetyRewriter:
        """The asserts and divisions of one function (safety.py). A failing work-item must
        not leave a loop that holds a barrier through its header, so a site in such a header
        stays unchecked. Accesses and helper calls inside asserts compiled away are dropped:
        they are not compiled."""
        is_kernel = fn.spelling in self.kernel_names
        checks = c_safety.SafetyRewriter(
            self.ps, fn.spelling,
            opencl_safety.spelling(lambda code: self._code_text(code, is_kernel)),
            asserts=self.kernel_asserts)
        collectives = self._collective_calls(fn, barrier_helpers)
        probe = ControlPlan(self.ps, fn, self.dialect, kernel=is_kernel,
                            barrier_calls=list(fa.barriers) + collectives,
                            failure_offsets=[], collectives=collectives)

        def unusable_at(offset):
            node, header = find_anchor(probe.root, offset)
            if header and node.is_loop and node.has_barrier:
                return ("in the header of a loop that holds a barrier: a failing work-item "
                        "could leave the loop while its group waits")
            if header and node.kind == "IF_STMT" and node.has_barrier:
                return ("in the condition of an if that holds a barrier: a failing work-item "
                        "could take another branch than its group")
            return ""

        c_safety.scan(checks, C.function_body(fn), depth_base=1000, unusable_at=unusable_at)
        if checks.removed:
            fa.accesses[:] = [a for a in fa.accesses if not checks.inside_removed(a.start)]
            fa.calls[:] = [c for c in fa.calls
                           if not checks.inside_removed(self.ps.offsets(c.cursor)[0])]
        return checks

    def _prechecks(self, f, fa, is_kernel, failing, checks, versioned, codes) -> list:
        """The checks of a kernel tested by a statement before theirs (prechecks.py): none
        where the kernel or a helper it calls holds a barrier or group collective."""
        if not is_kernel or not self.eliminate or holds_group_calls(
                f, self.dialect.barrier_functions) or self._collective_calls(f, self.grouped):
            return []
        others = [self.ps.offsets(c.cursor) for c in fa.calls if c.callee in failing] + \
            [(s.start, s.end) for s in checks.checked]
        with self._located(f):
            finder = PrecheckFinder(self.ps, f, build_tree(self.ps, C.function_body(f)))
            return finder.find(fa.checked, others, versioned.starts)

    def _control(self, fn, is_kernel, barrier_calls, collectives, failure_offsets, checks,
                 before=()):
        """(ControlPlan, its edits): where a failing work-item goes. Where the function's
        barriers make a failure path impossible only because of its divisions, those stay
        unchecked (a kernel that built before keeps building); asserts are the user's request
        and the plan's error stands."""
        exit_text = self._exit_text(fn, is_kernel)
        while True:
            offsets = failure_offsets + [s.start for s in checks.checked]
            try:
                plan = ControlPlan(self.ps, fn, self.dialect, kernel=is_kernel,
                                   barrier_calls=barrier_calls, failure_offsets=offsets,
                                   collectives=collectives)
                if not is_kernel and fn.spelling not in self.counted:
                    plan.barrier_mode = False
                return plan, plan.edits(exit_text, before)
            except UnsupportedError as err:
                if not checks.leave_divisions_unchecked(
                        "not checked: a failing work-item could not leave this function "
                        f"safely ({err.problem.split(':')[0]})"):
                    raise

    def _closure(self, facts, direct) -> set:
        """Helpers for which `direct` holds, or which call one that does."""
        return _closure({name: {c.callee for c in fa.calls} for name, fa in facts.items()
                         if name in self.helpers}, lambda name: direct(facts[name]))

    def _group_closure(self, facts, direct) -> set:
        """Non-kernel functions (left as written or not) for which `direct` holds, or which
        call one that does (their bodies' calls: a function left as written passes no hidden
        arguments, so its facts list none)."""
        if self._body_calls is None:
            K = C.kinds()
            self._body_calls = {}
            for f in self.fns:
                if f.spelling not in self.kernel_names:
                    body = C.function_body(f)
                    self._body_calls[f.spelling] = {
                        C.called_name(c) for c, _ in C.walk(body)
                        if c.kind == K.CALL_EXPR} if body is not None else set()
        return _closure(self._body_calls, lambda name: direct(facts[name]))

    def _collective_calls(self, fn, barrier_helpers) -> list:
        K = C.kinds()
        out = []
        for c, _ in C.walk(C.function_body(fn)):
            if c.kind == K.CALL_EXPR:
                name = C.called_name(c)
                if name in barrier_helpers or (
                        name and name.startswith("work_group_")
                        and name not in self.dialect.barrier_functions):
                    out.append(c)
        return out

    def _reject_kernel_calls(self):
        K = C.kinds()
        for f in self.fns:
            for c, _ in C.walk(f):
                if c.kind == K.CALL_EXPR and C.called_name(c) in self.kernel_names:
                    s, e = self.ps.offsets(c)
                    raise self.ps.error(
                        f"kernel '{C.called_name(c)}' is called as a function: safekern "
                        "checks kernels launched from the host only; move its body into a "
                        "helper function", s, e, kernel=f.spelling, cls=UnsupportedError)

    def _exit_text(self, fn, is_kernel) -> str:
        if is_kernel:
            return "return;"
        rt = fn.result_type
        canon = rt.get_canonical()
        if canon.kind.name == "VOID":
            return "return;"
        if canon.kind.name in ("RECORD", "ELABORATED"):
            return f"{{ {rt.spelling} __sk_r = {{0}}; return __sk_r; }}"
        return f"return ({rt.spelling})0;"

    def _signature_edits(self, fn, fa, is_kernel) -> list:
        ptrs = [p for p in fa.params if p.is_pointer]
        hidden = (self.dialect.kernel_hidden_params(ptrs) if is_kernel
                  else self.dialect.helper_hidden_params(ptrs))
        if fn.spelling in self.counted:
            hidden += ", " + self.dialect.helper_barrier_params()
        K = C.kinds()
        edits = []
        decls = [c for c in self.ps.main_top()
                 if c.kind == K.FUNCTION_DECL and c.spelling == fn.spelling]
        for d in decls:
            open_paren, close_paren = self._param_parens(d)
            inner = self.ps.slice(open_paren + 1, close_paren).strip()
            if inner in ("", "void"):
                edits.append(E.replace(open_paren + 1, close_paren, hidden))
            else:
                edits.append(E.insert_before(close_paren, ", " + hidden, 0))
        return edits

    def _param_parens(self, decl):
        s, e = self.ps.offsets(decl)
        name_at = decl.location.offset
        toks = [t for t in self.ps.tokens_between(s, e) if t[0] >= name_at]
        # (a definition a function-like macro writes, `DEF_ROTL(32)` for `rotl32`: the
        # tokens there are the macro's name and arguments, not the function's)
        if self.ps.macro_at(name_at) or len(toks) < 3 or toks[1][2] != "(" or \
                toks[0][2] != decl.spelling:
            raise self.ps.error(f"the parameter list of '{decl.spelling}' is written through "
                                "a macro: safekern cannot add its hidden parameters",
                                name_at, kernel=decl.spelling, cls=UnsupportedError)
        depth = 0
        for s0, _, spelling in toks[1:]:
            if spelling == "(":
                depth += 1
            elif spelling == ")":
                depth -= 1
                if depth == 0:
                    return toks[1][0], s0
        raise self.ps.error(f"cannot find the parameter list of '{decl.spelling}'", name_at)

    def _prologue_edits(self, fn, fa, is_kernel, barriers, flag) -> list:
        body = C.function_body(fn)
        start = self.ps.offsets(body)[0]
        parts = []
        if is_kernel:
            parts.append(self.dialect.kernel_prologue(barriers=barriers, flag=flag))
            used = counted_params(a.check for a in fa.checked)
            for p in fa.params:
                if p.is_pointer and p.index in used and not p.void:
                    parts.append(f"const long __sk_n_{p.name} = __sk_nb_{p.name} / "
                                 f"(long)sizeof(*{p.name});")
        for p in fa.moved:
            parts.append(f"{p.pointee} *__sk_orig_{p.name} = {p.name};")
        if not parts:
            return []
        return [E.insert_after(start + 1, " " + " ".join(parts), -1)]

    def _unedited_report(self, f, fa) -> list:
        """The report of a function left as written (opencl_unedited.py): its accesses, and
        for a kernel, that it is launched unchecked."""
        entries = self._report(fa, {})
        if f.spelling in self.kernel_names:
            where, lineno, col, _ = self.ps.place(self.ps.offsets(f)[0])
            entries.insert(0, ReportEntry(
                f.spelling, lineno, col, f"kernel {f.spelling}", "", Status.UNCHECKED,
                self.unedited[f.spelling],
                filename="" if where == self.ps.filename else where))
        return entries

    def _report(self, fa, site_codes) -> list:
        out = []
        for a in fa.accesses:
            where, lineno, col, _, _ = a.place(self.ps)   # (the source's #line followed)
            text = " ".join(self.ps.slice(a.start, a.end).split())
            status, reason = a.reported()
            predicate = a.extra["predicate"] if status == Status.PROVEN_AT_LAUNCH else ""
            out.append(ReportEntry(fa.name, lineno, col, text, a.array, status, reason,
                                   code=site_codes.get(id(a)), predicate=predicate,
                                   filename="" if where == self.ps.filename else where))
        return sorted(out, key=lambda r: (r.lineno, r.col))



def _closure(calls: dict, direct) -> set:
    """The names of `calls` (name -> the names it calls) for which `direct(name)` holds, or
    which call one that does."""
    out = {name for name in calls if direct(name)}
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in out and not called.isdisjoint(out):
                out.add(name)
                changed = True
    return out


__all__ = ["ProgramRewriter"]
