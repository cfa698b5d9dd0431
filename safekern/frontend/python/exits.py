"""Where a thread goes once one of its checks failed.

A failing check sets the thread's flag (`_sk_flag[0] = 1`) and the access is skipped. Then:
- a kernel without barriers returns right after the statement that failed;
- a `for` loop without barriers runs to its end with the flag set (loads stay checked, stores and
  atomics are skipped: cheap, and no exit test per iteration) and the thread leaves after it,
  unless the loop has stores without checks (proven in bounds), which do not test the flag;
  other loops without barriers (while loops, which might not end on placeholder values)
  `break` at once;
- elsewhere, in a kernel with barriers or in a device function, the thread skips every
  statement up to the next barrier (`if not _sk_flag[0]: ...` around them);
- every block barrier becomes `if syncthreads_or(flag): return`: one barrier that also tells
  the whole block whether any thread failed, so the block leaves together and nobody waits for
  a thread that left, or reads shared data it never wrote. In a device function the barrier
  sets every thread's flag to FLAG_BLOCK instead, and the caller leaves at its next barrier.
- a loop that holds barriers is left by every thread together once the block knows: after each
  statement holding a barrier, `if flag == FLAG_BLOCK: break` (a kernel returns after a call of
  a device function with barriers). The skipped statements may include the loop's own update
  (`s //= 2`), so without this exit the loop would never end. The test is uniform across the
  block (set at the same barrier for every thread), so no thread waits at a barrier alone.
- an `if` whose test may fail leaves on both branches: a failed load gives a stand-in value,
  and the untaken branch must not carry the thread on around a `while` loop for ever.
Stores and atomics also test the flag, so a thread that goes on with garbage values (a
device function returning after a failure) never writes.
"""
from __future__ import annotations

import ast

from . import names
from .exit_facts import (BARRIER, BARRIER_DEVICE, CHECK, GRID, PLAIN_BARRIER, PRINT, UNSAFE,
                         ExitFacts)
from .pending import pending_read
from .trees import walk


def _flag_set() -> ast.expr:
    return ast.Subscript(ast.Name(names.FLAG, ast.Load()), ast.Constant(0), ast.Load())


def _binds_grid_group(stmt) -> bool:
    return (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr == "this_grid" and not stmt.value.args)


def _store(target: ast.expr) -> ast.expr:
    """The same subscript or name as an assignment target."""
    target.ctx = ast.Store()
    return target


def _if(test, body) -> ast.If:
    return ast.If(test=test, body=body, orelse=[])


def _not(expr) -> ast.expr:
    return ast.UnaryOp(ast.Not(), expr)


def _bail(action: str, like, *, block_knows: bool = False) -> ast.stmt:
    """`if flag: return|break`; with `block_knows`, only once a barrier told the whole block."""
    stmt = ast.Return(None) if action == "return" else ast.Break()
    test = _flag_set()
    if block_knows:
        test = ast.Compare(test, [ast.Eq()], [ast.Constant(names.FLAG_BLOCK)])
    out = ast.copy_location(_if(test, [ast.copy_location(stmt, like)]), like)
    for n in walk(out):
        ast.copy_location(n, like)
    return out


def _calls(node):
    for n in walk(node):
        if isinstance(n, ast.Call):
            yield n


def is_check_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id.startswith(names.CHECK_HELPERS)


def may_fail(node) -> bool:
    """Does evaluating `node` run a check (directly or in a checked device function)?"""
    return any(is_check_call(c) for c in _calls(node))


def _header(stmt):
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, ast.For):
        return [stmt.iter]
    if isinstance(stmt, ast.With):
        return [item.context_expr for item in stmt.items]
    return []


def contains_barrier(body, resolver, parsed) -> bool:
    """Does the function hold a block barrier or a grid sync (barrier_kinds)?"""
    return bool(barrier_kinds(body, resolver, parsed))


def barrier_kinds(body, resolver, parsed) -> set:
    """The kinds of barrier the statements hold ("block": a block barrier or a call of a
    checked device function with barriers; "grid": a grid sync, `cuda.cg.this_grid().sync()`),
    in one walk (exit_facts.py classifies the calls)."""
    return ExitFacts(body, resolver, parsed).kinds()


def kernel_prelude(like, grid: bool = False, deferred: bool = False) -> list:
    """Return at once when a failure is pending; count the skipped launch once.

    `deferred`: only read the pending failure (pending.py places its test in the body).

    A kernel with grid syncs (`grid`) cannot return there: a failure of this very launch may
    be recorded while other threads have not started, and a thread that left would keep the
    grid waiting at its first sync. Its threads set their flag instead and leave together
    after the first grid sync (see _ExitPlanner._grid_sync)."""
    if grid:
        return _grid_prelude(like)
    fb0 = ast.Subscript(ast.Name(names.FB, ast.Load()), ast.Constant(0), ast.Load())
    pending = ast.Compare(fb0, [ast.NotEq()], [ast.Constant(0)])
    skip = ast.Expr(ast.Call(ast.Name(names.SKIP, ast.Load()),
                             [ast.Name(names.FB, ast.Load())], []))
    flag = ast.Assign([ast.Name(names.FLAG, ast.Store())], ast.Call(
        ast.Name(names.FLAG_ARRAY, ast.Load()), [], []))
    init = ast.Assign([ast.Subscript(ast.Name(names.FLAG, ast.Load()), ast.Constant(0),
                                     ast.Store())], ast.Constant(0))
    buffer = ast.Assign([ast.Name(names.FB, ast.Store())], ast.Call(
        ast.Name(names.BUFFER, ast.Load()), [ast.Name(names.FB_ADDRESS, ast.Load())], []))
    stmts = [buffer, _if(pending, [skip, ast.Return(None)]), flag, init]
    if deferred:
        stmts = [buffer, pending_read(), flag, init]
    return [ast.copy_location(s, like) for s in stmts]


def _grid_prelude(like) -> list:
    fb = lambda: ast.Name(names.FB, ast.Load())                      # noqa: E731
    buffer = ast.Assign([ast.Name(names.FB, ast.Store())], ast.Call(
        ast.Name(names.BUFFER, ast.Load()), [ast.Name(names.FB_ADDRESS, ast.Load())], []))
    flag = ast.Assign([ast.Name(names.FLAG, ast.Store())], ast.Call(
        ast.Name(names.FLAG_ARRAY, ast.Load()), [], []))
    init = ast.Assign([ast.Subscript(ast.Name(names.FLAG, ast.Load()), ast.Constant(0),
                                     ast.Store())], ast.Constant(0))
    parity = ast.Assign([ast.Name(names.GRID_PARITY, ast.Store())], ast.Constant(0))
    pending = ast.Compare(ast.Subscript(fb(), ast.Constant(0), ast.Load()), [ast.NotEq()],
                          [ast.Constant(0)])
    skip = ast.Expr(ast.Call(ast.Name(names.SKIP, ast.Load()), [fb()], []))
    set_flag = ast.Assign([ast.Subscript(ast.Name(names.FLAG, ast.Load()), ast.Constant(0),
                                         ast.Store())], ast.Constant(1))
    stmts = [buffer, flag, init, parity, _if(pending, [skip, set_flag])]
    out = []
    for stmt in stmts:
        for n in walk(stmt):
            ast.copy_location(n, like)
        out.append(stmt)
    return out


def _grid_slot() -> ast.expr:
    """fb[GRID_FAILED + parity]: where threads that failed before this grid sync say so."""
    return ast.Subscript(ast.Name(names.FB, ast.Load()), ast.BinOp(
        ast.Constant(GRID_FAILED), ast.Add(), ast.Name(names.GRID_PARITY, ast.Load())),
        ast.Load())


# Two buffer slots, used alternately by successive grid syncs: a thread that fails after a
# sync writes the other slot, so the one read after that sync stays as every thread saw it.
GRID_FAILED = 14


class _ExitPlanner:
    def __init__(self, kind, has_barriers, resolver, parsed, facts: ExitFacts):
        self.kind = kind                    # "kernel" or "device"
        self.has_barriers = has_barriers
        self.resolver = resolver
        self.parsed = parsed
        self.facts = facts                  # what each statement holds (exit_facts.py)

    def has_barrier(self, node) -> bool:
        return bool(self.facts.of(node) & BARRIER)

    def _may_fail(self, stmt) -> bool:
        return bool(self.facts.of(stmt) & CHECK)

    # -- the barrier itself ---------------------------------------------------------------
    def _or_barrier(self, like) -> ast.stmt:
        test = ast.Call(ast.Attribute(ast.Name(names.CUDA, ast.Load()), "syncthreads_or",
                                      ast.Load()), [_flag_set()], [])
        if self.kind == "kernel":
            body = [ast.Return(None)]
        else:
            body = [ast.Assign([ast.Subscript(ast.Name(names.FLAG, ast.Load()), ast.Constant(0),
                                              ast.Store())], ast.Constant(names.FLAG_BLOCK))]
        stmt = _if(test, body)
        for n in walk(stmt):
            ast.copy_location(n, like)
        return stmt

    def _is_grid_sync(self, stmt) -> bool:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return False
        role = self.resolver.classify_call(stmt.value.func, self.parsed)
        return role is not None and role[0] == "grid_sync"

    def _grid_sync(self, stmt) -> list:
        """`g.sync()` made failure-safe: every thread reaches it (a failing one skipped the
        statements before it); a thread whose flag is set marks this sync's slot first; after
        the sync every thread reads the slot, and the whole grid leaves if it is set."""
        flagged = _if(_flag_set(), [ast.Assign([_store(_grid_slot())], ast.Constant(1))])
        leave = _if(ast.Compare(_grid_slot(), [ast.NotEq()], [ast.Constant(0)]),
                    [ast.Return(None)] if self.kind == "grid" else [ast.Assign(
                        [_store(_flag_set())], ast.Constant(names.FLAG_BLOCK))])
        flip = ast.Assign([ast.Name(names.GRID_PARITY, ast.Store())], ast.BinOp(
            ast.Constant(1), ast.Sub(), ast.Name(names.GRID_PARITY, ast.Load())))
        out = [flagged, stmt, leave, flip]
        for new in (flagged, leave, flip):
            for n in walk(new):
                ast.copy_location(n, stmt)
        return out

    def _holds_grid_sync(self, node) -> bool:
        return bool(self.facts.of(node) & GRID)

    def _is_plain_syncthreads(self, stmt) -> bool:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return False
        role = self.resolver.classify_call(stmt.value.func, self.parsed)
        return role == ("barrier", "syncthreads") and not stmt.value.args

    # -- blocks ---------------------------------------------------------------------------
    def block(self, stmts, *, in_free_loop: bool, failing: bool,
              in_barrier_loop: bool = False) -> list:
        """Rewrite a statement list; `failing`: the flag may already be set on entry;
        `in_barrier_loop`: the list is (inside) the body of a loop that holds barriers."""
        if self.kind == "kernel" and not self.has_barriers:
            return self._return_block(stmts)
        out, guarded = [], []

        def flush():
            if guarded:
                out.append(ast.copy_location(_if(_not(_flag_set()), list(guarded)), guarded[0]))
                guarded.clear()

        for stmt in stmts:
            if self._is_grid_sync(stmt):
                flush()
                out += self._grid_sync(stmt)
                failing = self.kind == "device"
                continue
            if _binds_grid_group(stmt):
                # `g = cuda.cg.this_grid()` runs on every thread: a thread that skipped it
                # would have no `g` to sync on.
                flush()
                out.append(stmt)
                continue
            if self._is_plain_syncthreads(stmt):
                flush()
                out.append(self._or_barrier(stmt))
                failing = self.kind != "kernel"
                if in_barrier_loop and self.kind != "kernel":
                    out.append(_bail("break", stmt, block_knows=True))
                continue
            barrier_inside = self.has_barrier(stmt)
            if barrier_inside and not isinstance(stmt, (ast.If, ast.For, ast.While, ast.With)):
                # A barrier inside an expression (syncthreads_count/_and/_or, or a device
                # function with barriers): the block decides to leave at one barrier of ours
                # first, then every thread runs the statement and its barrier.
                flush()
                if not self._calls_device_only(stmt):
                    out.append(self._or_barrier(stmt))
                    failing = self.kind != "kernel"
                out.append(stmt)
            else:
                new = self._compound(stmt, in_free_loop=in_free_loop, failing=failing,
                                     in_barrier_loop=in_barrier_loop)
                if failing and not barrier_inside and not isinstance(stmt, ast.Return):
                    guarded.append(new)
                else:
                    flush()
                    out.append(new)
            if barrier_inside:
                # A barrier below told the whole block (flag == FLAG_BLOCK): leave together.
                if self.kind == "kernel" and self._calls_barrier_device(stmt):
                    out.append(_bail("return", stmt, block_knows=True))
                elif in_barrier_loop and self.kind != "kernel":
                    out.append(_bail("break", stmt, block_knows=True))
            if self._may_fail(stmt):
                if in_free_loop:
                    flush()
                    out.append(_bail("break", stmt))
                else:
                    failing = True
        flush()
        return out

    def _calls_barrier_device(self, stmt) -> bool:
        """Does `stmt` call a checked device function that holds barriers?"""
        return bool(self.facts.of(stmt) & BARRIER_DEVICE)

    def _calls_device_only(self, stmt) -> bool:
        return not self.facts.of(stmt) & PLAIN_BARRIER

    def _compound(self, stmt, *, in_free_loop, failing, in_barrier_loop=False):
        header_fails = any(may_fail(h) for h in _header(stmt))
        if isinstance(stmt, ast.If):
            stmt.body = self._branch(stmt.body, in_free_loop, failing or header_fails,
                                     in_barrier_loop)
            stmt.orelse = self._branch(stmt.orelse, in_free_loop, failing or header_fails,
                                       in_barrier_loop)
        elif isinstance(stmt, (ast.For, ast.While)):
            free = not self.has_barrier(stmt)
            if free and self._finite(stmt):
                # Run the loop to its end with the flag set (loads stay checked, stores and
                # atomics are skipped) and leave after it: no exit test per iteration, so the
                # loop keeps one exit and the compiler may unroll it.
                if header_fails or failing:
                    stmt.body = [_bail("break", stmt)] + stmt.body
            elif free:
                body = self.block(stmt.body, in_free_loop=True, failing=False)
                stmt.body = ([_bail("break", stmt)] if (header_fails or failing) else []) + body
            else:
                # A loop around a grid sync is never left by one block alone: the grid would
                # wait for it at the sync; after the sync the whole grid leaves together.
                stmt.body = self.block(stmt.body, in_free_loop=False,
                                       failing=failing or header_fails,
                                       in_barrier_loop=not self._holds_grid_sync(stmt))
            stmt.orelse = self._branch(stmt.orelse, in_free_loop, failing or header_fails,
                                       in_barrier_loop)
        elif isinstance(stmt, ast.With):
            stmt.body = self._branch(stmt.body, in_free_loop, failing or header_fails,
                                     in_barrier_loop)
        return stmt

    def _branch(self, body, in_free_loop, failing, in_barrier_loop=False):
        if not body:
            return body
        if failing and in_free_loop:
            return [_bail("break", body[0])] + self.block(body, in_free_loop=True, failing=False)
        return self.block(body, in_free_loop=in_free_loop, failing=failing,
                          in_barrier_loop=in_barrier_loop)

    # -- kernels without barriers: leave at once -----------------------------------------------
    def _finite(self, loop) -> bool:
        """A `for` loop that ends by itself whatever its accesses read: no `while` inside (a
        while on values read after a failure, all zero, might never end) and no calls of
        unchecked device functions (which would run on garbage)."""
        return isinstance(loop, ast.For) and self._runs_on_after_failure(loop)

    def _runs_on_after_failure(self, node) -> bool:
        """`node` may run with the thread's flag set: it ends whatever its loads read and
        writes nothing (its stores and atomics test the flag): no `while`, no store whose
        check was eliminated (it does not test the flag: it would write what failed loads
        gave), no `cuda.atomic`, no call of a plain device function."""
        return not self.facts.of(node) & UNSAFE

    def _straight(self, stmt) -> bool:
        """A simple statement that may run after a failure in the statements before it (not
        a `print`, which would show what failed loads gave)."""
        return isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) and \
            not self.facts.of(stmt) & (UNSAFE | PRINT)

    def _return_block(self, stmts) -> list:
        """Leave after a statement that failed; after a run of straight statements (no
        branch, loop, plain store or atomic), once at its end: the checks of the run then
        share no branch with the work between them, so the compiler can overlap the loads
        of successive statements (Perlin noise's four permutation-table gathers), and a
        failure is recorded where it happens all the same."""
        out, pending = [], None
        for stmt in stmts:
            if pending is not None and not self._straight(stmt):
                out.append(_bail("return", pending))
                pending = None
            header_fails = any(may_fail(h) for h in _header(stmt))
            if isinstance(stmt, ast.For) and self._finite(stmt):
                # As in `_compound`: no exit per iteration; leave after the loop.
                if header_fails:
                    stmt.body = [_bail("return", stmt)] + stmt.body
                stmt.orelse = self._return_block(stmt.orelse)
                out.append(stmt)
                if self._may_fail(stmt):
                    out.append(_bail("return", stmt))
                continue
            if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With)):
                stmt.body = self._return_block(stmt.body)
                if header_fails:
                    stmt.body = [_bail("return", stmt)] + stmt.body
                if not isinstance(stmt, ast.With):
                    stmt.orelse = self._return_block(stmt.orelse)
                    # An `if` leaves on the untaken side too (no else: a new one): the
                    # stand-in value may select it, and the thread must not go on around
                    # an enclosing `while` loop on it.
                    if header_fails and (stmt.orelse or isinstance(stmt, ast.If)):
                        stmt.orelse = [_bail("return", stmt)] + stmt.orelse
                out.append(stmt)
                if header_fails and isinstance(stmt, (ast.For, ast.While)):
                    out.append(_bail("return", stmt))
            else:
                out.append(stmt)
                if self._may_fail(stmt) and not isinstance(stmt, ast.Return):
                    pending = stmt
        if pending is not None:
            out.append(_bail("return", pending))
        return out


def add_failure_exits(body, *, kind: str, has_barriers: bool, resolver, parsed,
                      grid_sync: bool = False, facts: ExitFacts | None = None) -> list:
    """The statement list with failure exits and barrier-safe barriers (see module doc).

    A kernel with grid syncs (`grid_sync`: "grid" in barrier_kinds) is planned as kind
    "grid": its block barriers tell the block (flag FLAG_BLOCK) without leaving, and the grid
    leaves together after a grid sync; its threads may start with the flag set
    (kernel_prelude). `facts`: ExitFacts(body, resolver, parsed), when the caller has them."""
    grid = kind == "kernel" and grid_sync
    if facts is None:
        facts = ExitFacts(body, resolver, parsed)
    planner = _ExitPlanner("grid" if grid else kind, has_barriers or grid, resolver, parsed,
                           facts)
    return planner.block(body, in_free_loop=False, failing=grid)


__all__ = ["add_failure_exits", "kernel_prelude", "contains_barrier", "barrier_kinds",
           "may_fail", "GRID_FAILED"]
