"""The Python front end's pipeline: one kernel or device function, parsed -> checked.

    parse.parse_function(pyfunc)  -> ParsedFunction   (source, absolute lines, globals, closure)
    checks.BoundsCheckRewriter    loads/stores/atomics -> calls of check helpers, one site each;
                                  safety.py: assert, raise, division by zero
    eliminate.eliminate_checks    drop checks proven in bounds, version loops (check once)
    exits.add_failure_exits       where a failing thread goes (return / break / skip to barrier)
    rewrite_function(...)         all of them, returns a RewrittenFunction

Each pass returns what it made (a new tree, its verdicts); this module puts the results
together, and an unexpected exception in any of them becomes a located InternalError
(located.py) naming the kernel and the line being checked.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field, replace

from ...errors import CompilationError
from ..located import internal_errors
from . import eliminate, exit_mode, exits as barriers, names
from .exit_calls import end_thread_at
from .exit_facts import ExitFacts
from .flag_tests import redundant_flag_tests, without_flag_tests
from .checks import BoundsCheckRewriter, CheckSite, _Context, hidden_first
from .call_facts import specialise_calls
from .call_chain import takes_chain, thread_chain
from .collapse import collapse_same_branches
from .parse import ParsedFunction
from .trees import copy_tree, place, walk
from .pending import PendingPlacer
from .unchecked import Unchecker


@dataclass
class RewrittenFunction:
    parsed: ParsedFunction
    tree: ast.Module                # the rewritten function, ready to compile
    sites: list[CheckSite] = field(default_factory=list)
    device_calls: dict = field(default_factory=dict)    # generated name -> checked device fn
    has_barriers: bool = False
    plain_device_calls: list = field(default_factory=list)   # (lineno, name): unchecked callees
    # What each failure code of the rewrite means; the backend registers them (failures.TABLE)
    # when it builds or loads the kernel, the same way for a fresh rewrite and a stored one.
    failure_sites: list = field(default_factory=list)
    # A device function that takes the call chain `_sk_cs` (call_chain.py); its callers pass it.
    call_chain: bool = False
    # Launch predicates (launch.py): when all hold at a launch, the backend may launch
    # `launch_variant` (this rewrite without the checks they prove) instead of `tree`.
    launch_predicates: tuple = ()
    launch_variant: "RewrittenFunction | None" = None
    # (Not a field: not stored, not copied by `replace`.) Makes the launch variant for a
    # subset of the predicates from this rewrite's own elimination, which does not depend on
    # the subset: without it, that variant is a whole rewrite of its own.
    _subset_maker = None

    @property
    def source(self) -> str:
        return ast.unparse(self.tree)

    def variant_for_subset(self, launch_subset: frozenset):
        """This rewrite's launch variant without only the checks the predicates
        `launch_subset` prove: what `rewrite_function(..., launch_subset=...)` makes, from this
        rewrite's elimination (None where it kept none: a rewrite from the kernel cache, one
        with fewer than two predicates)."""
        maker = self._subset_maker
        return None if maker is None else maker(launch_subset)


class _BoundResolver:
    """The backend's resolver, plus the checked device functions this rewrite renamed."""

    def __init__(self, resolver, device_calls):
        self.resolver = resolver
        self.device_calls = device_calls

    def classify_call(self, func, parsed):
        if isinstance(func, ast.Name) and func.id in self.device_calls:
            return ("device", self.device_calls[func.id])
        if isinstance(func, ast.Name) and func.id.startswith(names.PREFIX):
            return None
        return self.resolver.classify_call(func, parsed)


def _check_reserved_names(parsed: ParsedFunction) -> None:
    read, params, _ = parsed.mentioned
    if not any(n.startswith(names.PREFIX) for n in read) and \
            not any(n.startswith(names.PREFIX) for n in params):
        return
    for node in walk(parsed.tree):           # (the first, as the walk meets them: reported)
        ident = None
        if isinstance(node, ast.Name):
            ident = node.id
        elif isinstance(node, ast.arg):
            ident = node.arg
        if ident is not None and ident.startswith(names.PREFIX):
            p = parsed
            raise CompilationError(
                f"the name {ident!r} is reserved for safekern's generated code; rename it",
                filename=p.filename, lineno=node.lineno, source_line=p.source_line(node.lineno),
                col=p.column(node.lineno, node.col_offset),
                end_col=p.column(node.lineno, node.end_col_offset),
                kernel=p.shown_name)


def rewrite_function(parsed: ParsedFunction, *, device: bool, resolver,
                     eliminate_checks: bool = True,
                     kernel_exceptions: bool = True,
                     launch_predicates: bool = False,
                     launch_subset: frozenset | None = None,
                     param_facts: tuple = (), settings=None,
                     checked=None) -> RewrittenFunction:
    """The checked version of a kernel (device=False) or device function (device=True).

    With `eliminate_checks`, checks proven unable to fail are dropped and loop accesses are
    checked once before the loop where possible (see eliminate.py). With `kernel_exceptions`,
    assert, raise and division by zero become failures (safety.py); without, they are left to
    numba (debug=True kernels raise them at the launch). With `launch_predicates` (kernels
    only), checks the host can prove at a launch are found (launch.py): the result then has
    `launch_predicates` and a `launch_variant` without those checks -- without only those whose
    predicates are all in `launch_subset`, when it is given (the variant for launches where
    just those hold). `param_facts` (device functions): what every call of this
    specialisation passes (call_facts.py); the checked device functions it calls are
    specialised for what their call sites know. `settings`: safekern's settings (a
    config.Config) the rewrite follows (asserts, float division), by default the current ones.
    `checked`: what refuse_unsupported returned for this function with the same resolver,
    exceptions and settings, its names meaning what they mean now: the check rewriter's pass,
    not run again (its result is the rewrite's to edit: given to one rewrite only).

    Kernels get one hidden parameter (the failure buffer) and a prelude; device functions get
    two (the failure buffer and the calling thread's failure flag).
    """
    _check_reserved_names(parsed)
    with _internal_errors_in(parsed):
        return _rewrite(parsed, device, resolver, eliminate_checks, kernel_exceptions,
                        launch_predicates, launch_subset, param_facts, settings, checked)


def _internal_errors_in(parsed):
    """An internal error while `parsed` is rewritten, reported at its def line (located.py)."""
    return internal_errors(kernel=parsed.shown_name, filename=parsed.filename,
                           lineno=parsed.tree.lineno,
                           source_line=parsed.source_line(parsed.tree.lineno))


def refuse_unsupported(parsed: ParsedFunction, *, resolver, kernel_exceptions: bool = True,
                       settings=None):
    """Raise what rewrite_function would raise for the user's code (the errors of docs/checks.md
    "Rejected at decoration time", each naming file:line), without the rest of the rewrite: the
    check rewriter alone (with the parameters' check), whose passes (checks.py, safety.py,
    nested.py) are where every such error is found. What a decoration runs when the whole rewrite --
    elimination, launch variants: most of its cost -- can wait for a build (numba's Build).
    Returns what that pass made, which the rewrite may start from (rewrite_function's
    `checked`) while the function's names mean what they meant here."""
    _check_reserved_names(parsed)
    with _internal_errors_in(parsed):
        return _checked_body(parsed, resolver, kernel_exceptions, settings)


def _checked_body(parsed, resolver, kernel_exceptions, settings):
    """(context, the parse's copy, its statements with every access checked): the check
    rewriter's pass, the first of a rewrite; an error for parameters a kernel cannot take."""
    ctx = _Context(parsed, resolver)
    ctx.kernel_exceptions = kernel_exceptions
    if settings is not None:
        ctx.settings = settings
    fn = copy_tree(parsed.tree)          # the rewriter edits nodes in place; keep the parse intact
    rewriter = BoundsCheckRewriter(ctx)
    rewriter.located_kernel, rewriter.located_filename = parsed.shown_name, parsed.filename
    rewriter.located_indent = parsed.indent
    body = []
    for stmt in fn.body:
        new = rewriter.visit(stmt)
        body += new if isinstance(new, list) else [new]
    if fn.args.kwarg or fn.args.kwonlyargs:
        raise ctx.error(fn, "**kwargs and keyword-only parameters are not supported in "
                            "checked kernels")
    return ctx, fn, body


def _rewrite(parsed, device, resolver, eliminate_checks, kernel_exceptions, launch_predicates,
             launch_subset=None, param_facts=(), settings=None, checked=None):
    ctx, fn, body = checked or _checked_body(parsed, resolver, kernel_exceptions, settings)
    if device:          # (its call sites were registered as a kernel's: checks.register_call)
        ctx.failure_sites[:] = [replace(s, in_kernel=False) if s.kind == "call" else s
                                for s in ctx.failure_sites]
    new_fn = copy.copy(fn)
    bound = _BoundResolver(resolver, ctx.device_calls)
    sites = ctx.sites
    launch_body, predicates, maker = None, (), None
    variant_calls = ctx.device_calls
    if eliminate_checks:
        is_cuda_module = getattr(resolver, "is_cuda_module", None)
        found = eliminate.eliminate_checks(
            fn, body, ctx=ctx, sites=ctx.sites, parsed=parsed, resolver=bound,
            is_cuda=(lambda e: is_cuda_module(e, parsed)) if is_cuda_module else
            (lambda e: False), device=device, launch=launch_predicates,
            param_facts=param_facts)
        body = found.body
        unspecialised = dict(ctx.device_calls)      # (specialise_calls updates it)
        variant_calls = specialise_calls(ctx.device_calls, found, launch_subset)
        sites = [replace(s, status=found.verdicts[s.code][0], reason=found.verdicts[s.code][1],
                         predicate=" and ".join(p.text()
                                                for p in found.launch_codes.get(s.code, ())))
                 if s.code in found.verdicts else s for s in sites]
        if found.launch_codes:
            # The variant launched when its predicates hold: those checks plain accesses.
            predicates = tuple(dict.fromkeys(p for ps in found.launch_codes.values()
                                             for p in ps))
            flag_tested = device or barriers.contains_barrier(body, bound, parsed)
            launch_body = _launch_body(body, found, launch_subset, flag_tested)
            if launch_subset is None and len(predicates) > 1:
                # (_finish edits `body` in place: the subsets' variants start from a copy.)
                maker = _SubsetVariants(fn, copy_tree(body), found, device, bound, parsed,
                                        ctx, flag_tested, unspecialised)
    module, has_barriers, chain = _finish(fn, new_fn, body, device, bound, parsed, ctx,
                                          ctx.device_calls)
    rewritten = RewrittenFunction(parsed, module, sites, ctx.device_calls, has_barriers,
                                  ctx.plain_device_calls, ctx.failure_sites, call_chain=chain)
    if launch_body is not None:
        rewritten.launch_predicates = predicates
        rewritten.launch_variant = _variant(rewritten, fn, launch_body, device, bound, parsed,
                                            ctx, variant_calls)
        if maker is not None:
            maker.rewritten = rewritten
            rewritten._subset_maker = maker
    return rewritten


def _launch_body(body, found, launch_subset, flag_tested) -> list:
    """The eliminated body without the checks the predicates `launch_subset` (None: all)
    prove, as a new statement list (the Unchecker edits a copy of its own; collapsing edits
    that copy, no other)."""
    codes = {code for code, ps in found.launch_codes.items()
             if launch_subset is None or set(ps) <= launch_subset}
    return collapse_same_branches(
        [Unchecker(codes, flag_tested=flag_tested).visit(copy_tree(stmt))
         for stmt in body], owned=True)


def _variant(rewritten, fn, launch_body, device, bound, parsed, ctx, variant_calls):
    launch_module, _, chain = _finish(fn, copy.copy(fn), launch_body, device, bound, parsed,
                                      ctx, variant_calls)
    return replace(rewritten, tree=launch_module, device_calls=variant_calls, call_chain=chain)


class _SubsetVariants:
    """A rewrite's launch variants for subsets of its predicates, made from its elimination
    (`body` as eliminate_checks left it, before the failure exits): the steps of `_rewrite`
    that depend on the subset, and nothing else. Everything before them -- the check
    rewriter, the elimination, its verdicts -- is the same for every subset."""

    def __init__(self, fn, body, found, device, bound, parsed, ctx, flag_tested, calls):
        self.args = (fn, body, found, device, bound, parsed, ctx, flag_tested, calls)
        self.rewritten = None

    def __call__(self, launch_subset):
        fn, body, found, device, bound, parsed, ctx, flag_tested, calls = self.args
        with _internal_errors_in(parsed):
            launch_body = _launch_body(body, found, launch_subset, flag_tested)
            calls = specialise_calls(dict(calls), found, launch_subset)
            return _variant(self.rewritten, fn, launch_body, device, bound, parsed, ctx, calls)


def _finish(fn, new_fn, body, device, bound, parsed, ctx, calls):
    """The function around the checked body: failure exits, hidden parameters, prelude, the
    call chain (call_chain.py; `calls`: the device functions it calls). -> (module, whether it
    has barriers, whether it takes the call chain)"""
    facts = ExitFacts(body, bound, parsed)      # (one walk for the kinds and the exits)
    kinds = facts.kinds()
    has_barriers, grid_sync = bool(kinds), "grid" in kinds
    body = barriers.add_failure_exits(body, kind="device" if device else "kernel",
                                      has_barriers=has_barriers, resolver=bound, parsed=parsed,
                                      grid_sync=grid_sync, facts=facts)
    # checked accesses in loops that store end a failing thread at the check (exit_mode.py)
    exiting = exit_mode.exiting_checks(body, device=device, has_barriers=has_barriers,
                                       grid_sync=grid_sync, resolver=bound, parsed=parsed)
    end_thread_at(exiting)
    if exiting:
        # the flag tests only those checks came before (flag_tests.py)
        body = without_flag_tests(body, redundant_flag_tests(body))
    args = ast.arguments(posonlyargs=list(fn.args.posonlyargs), args=list(fn.args.args),
                         vararg=fn.args.vararg, kwonlyargs=list(fn.args.kwonlyargs),
                         kw_defaults=list(fn.args.kw_defaults), kwarg=fn.args.kwarg,
                         defaults=list(fn.args.defaults))
    # the pending failure's test as late as is harmless (pending.py), unless an access is
    # left unchecked (its plain subscript is not proven) or grid syncs need the grid prelude
    deferred = not device and not grid_sync and \
        not any(s.status == "unchecked" for s in ctx.sites)
    if deferred:
        body = PendingPlacer(bound.resolver, parsed).place(body)
    chain = device and takes_chain(body, calls)
    thread_chain(body, chain=chain, calls=calls, call_codes=ctx.call_codes, parsed=parsed)
    hidden = [ast.arg(names.FB), ast.arg(names.FLAG)] if device else [ast.arg(names.FB_ADDRESS)]
    if chain:
        hidden.append(ast.arg(names.CHAIN))
    first = hidden_first(fn.args, device)
    if first:
        args.args = hidden + args.args     # callers and launches put them there too
    else:
        args.args += hidden
    new_fn.body = body if device else \
        barriers.kernel_prelude(fn, grid=grid_sync, deferred=deferred) + body
    if fn.args.defaults and not first:
        # Hidden parameters follow the user's; give them defaults so defaults stay legal.
        args.defaults = list(fn.args.defaults) + [ast.Constant(None)] * len(hidden)
    new_fn.args = args
    module = ast.Module(body=[new_fn], type_ignores=[])
    place(module, fn)       # (generated nodes: the def line's position)
    return module, has_barriers, chain

__all__ = ["rewrite_function", "refuse_unsupported", "RewrittenFunction"]
