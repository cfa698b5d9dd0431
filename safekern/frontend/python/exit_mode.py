"""Which of a kernel's failing checks end the thread where they fail (an analysis).

exits.py makes a failing thread of a kernel without barriers leave after the statement that
failed, and a `for` loop run on to its end with the flag set (stores and atomics skipped). In
a loop that *stores*, that costs on the GPU: each check's cold path (the failure record)
joins the loop again, so the loop carries the flag and everything the record needs in
registers, and every store tests the flag. A BFS step (`for k in range(indptr[u],
indptr[u+1]): v = indices[k]; if level[v] < 0: next_frontier[v] = 1`) was 40 registers
instead of numba's 23 (75% occupancy). A thread that leaves at the failing check (PTX `exit`,
as the CUDA C checks do) has nothing to join: on an H100 that step went 1.58x -> 1.18x
(benchmarks/results/2026-11-27-numba-bfs-perlin-cpu.md, nbfs5).

The rule: a checked access (`_sk_load`, `_sk_loadv`, `_sk_store`, `_sk_atomic_<op>`) ends the
thread when it fails iff the innermost loop it runs in (each iteration: a `for`'s body, a
`while`'s test and body; not a `for`'s iterable, evaluated once, nor a loop's `else`) stores to
memory anywhere in that body, nested loops included: a subscript assignment (`a[i] = v`,
`a[i] += v`: any array, local arrays too), a checked or proven store (`_sk_store`,
`_sk_put`) or an atomic (`_sk_atomic_<op>`, `cuda.atomic.<op>`). Assigning a local name is no
store. Everything else keeps the flag: straight-line code (no join of a loop to pay for), and
loops that only read and accumulate, where the exit hurt: in a CSR SpMV's `acc += data[k] *
x[indices[k]]` the exit branch after each index's check stands between that iteration's index
load and the next iteration's loads, which the branch-free select load (_sk_loadv, whose cold
record rejoins) lets the compiler issue together (H100: spmv_csr 0.98x -> 2.75x with the exit;
rw_perlin, straight-line gathers, 1.45x -> 1.56x). A store in a device function the loop calls
does not count (its own checks keep the flag anyway).

Leaving at the check is what the thread would have done anyway, only earlier: everything it
would still run before leaving has no effect (exits.py: a statement after a failure runs only
if it stores, prints and calls nothing unchecked; a loop runs on only if its stores and atomics
test the flag). That holds for each check alone, so checks that exit and checks that set the
flag mix in one kernel (a store still tests the flag: a check before the loop, a device
function, an assert or a division may have set it). It is not the same where other threads wait
for the thread or read its registers, so no check of the kernel exits when it has:

- block barriers or grid syncs (the flag scheme makes them failure-safe);
- warp-level functions (`syncwarp`, `shfl_*_sync`, votes, `match_*_sync`, `activemask`,
  `lanemask_lt`): the lanes of a loop that goes on after one lane failed still meet there;
- device functions safekern does not rewrite (what they do is not known), and checked ones
  that do any of the above. Device functions themselves keep the flag (their caller goes on).

The pending test (pending.py) comes before every loop (a loop is never harmless there), so
thread 0 of block 0 still counts a skipped launch before a check that exits can end it.
A versioned loop's or body's checked copy (versioning.py's names.COLD_LOOP, body_versioning.py's
names.COLD_BODY) runs only where the test before it failed, so the hot path's reasons to keep
the flag do not hold there: every checked access of the copy ends the thread, stores or not
(under the same kernel-wide conditions), and its failure paths join nothing.

exit_calls.py renames the checks found here to their `_exit` helpers.
"""
from __future__ import annotations

import ast

from . import names
from .trees import add_children, walk
from .visitor import Visitor

#: numba.cuda's warp-level functions: the lanes named meet there (or ask who is active).
WARP_LEVEL = frozenset((
    "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync",
    "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync", "activemask",
    "lanemask_lt"))

#: The check helpers whose failure may end the thread (divisions, asserts and raises keep
#: the flag: they are not in loops' hot paths).
EXITING = (names.LOAD, names.LOADV, names.STORE)

_MAX_DEPTH = 8          # device functions calling device functions: beyond, not known
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def is_exiting_check(call) -> bool:
    """A check that may end the thread: a checked load, store or atomic."""
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and (
        call.func.id in EXITING or call.func.id.startswith(names.ATOMIC) and
        not call.func.id.endswith(names.EXIT))


def exiting_checks(body, *, device: bool, has_barriers: bool, grid_sync: bool, resolver,
                   parsed) -> list:
    """The check calls of `body` whose failure may end the thread (see module doc), in source
    order; none for a device function or a kernel that meets other threads."""
    if device or has_barriers or grid_sync:
        return []
    found = []
    for stmt in body:
        _Loops(found).visit(stmt)
    if not found or _meets_other_threads(body, resolver, parsed, 0):
        return []
    return found


class _Loops(Visitor):
    """Collects the checks whose innermost enclosing loop stores (module doc)."""

    def __init__(self, found: list):
        self.found = found
        self.stores = [False]           # per enclosing loop, innermost last; [0]: no loop
        self.cold = 0                   # > 0: inside a checked copy (see visit_If)

    def _in(self, nodes, stores: bool) -> None:
        self.stores.append(stores)
        for node in nodes:
            self.visit(node)
        self.stores.pop()

    def visit_For(self, node):
        cold = bool(getattr(node, names.COLD_LOOP, False))
        self.cold += cold
        self.visit(node.target)
        self.visit(node.iter)                               # evaluated once, outside
        self._in(node.body, _stores(node.body))
        for stmt in node.orelse:
            self.visit(stmt)
        self.cold -= cold

    visit_AsyncFor = visit_For

    def visit_If(self, node):
        # A versioned body's checked copy (the else of names.COLD_BODY's `if`) and a versioned
        # loop's (names.COLD_LOOP) run only where the test before them failed: their checks
        # end the thread too, stores or not. Their failure paths then rejoin nothing, which
        # spares ptxas (spmv_csr's variant: ptxas 0.133 -> 0.072 s, a CPU); where no check
        # fails, the copy computes as before.
        if not getattr(node, names.COLD_BODY, False):
            return self.generic_visit(node)
        self.visit(node.test)
        for stmt in node.body:
            self.visit(stmt)
        self.cold += 1
        for stmt in node.orelse:
            self.visit(stmt)
        self.cold -= 1

    def visit_While(self, node):
        self._in([node.test] + node.body, _stores(node.body))
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Call(self, node):
        if (self.stores[-1] or self.cold) and is_exiting_check(node):
            self.found.append(node)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        pass                            # (a nested function's checks keep the flag)

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def _stores(body) -> bool:
    """Does a loop body store to memory (module doc)? Nested functions are not looked into."""
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and not (
                isinstance(node.value, ast.Name) and node.value.id.startswith(names.PREFIX)):
            return True                 # (not the flag exits.py sets: no user array)
        if isinstance(node, ast.Call) and _store_call(node.func):
            return True
        add_children(node, todo)        # (ast.iter_child_nodes' but the contexts: no store)
    return False


def _store_call(func) -> bool:
    if isinstance(func, ast.Name):
        return func.id in (names.STORE, names.PUT) or func.id.startswith(names.ATOMIC)
    # `cuda.atomic.add(...)`, `_sk_cuda.atomic.max(...)`: a proven atomic
    return isinstance(func, ast.Attribute) and (
        isinstance(func.value, ast.Attribute) and func.value.attr == "atomic" or
        isinstance(func.value, ast.Name) and func.value.id == "atomic")


def _meets_other_threads(body, resolver, parsed, depth: int) -> bool:
    """Does `body` (or a device function it calls) hold a barrier, a warp-level call or a
    call of code safekern does not see into?"""
    if depth > _MAX_DEPTH:
        return True
    for stmt in body:
        for call in walk(stmt):
            if not isinstance(call, ast.Call):
                continue
            if warp_level(call.func, resolver, parsed):
                return True
            role = resolver.classify_call(call.func, parsed)
            if role is None:
                continue
            if role[0] in ("barrier", "grid_sync", "plain_device"):
                return True
            if role[0] == "device":
                dev = role[1]
                if getattr(dev, "has_barriers", False):
                    return True
                inner = getattr(dev, "parsed", None)
                if inner is None or _meets_other_threads(inner.tree.body, resolver, inner,
                                                         depth + 1):
                    return True
    return False


def warp_level(func, resolver, parsed) -> bool:
    """`cuda.shfl_sync`, `shfl_sync` imported by any name, ...: by the name it is called by or
    the name of what it resolves to."""
    if isinstance(func, ast.Attribute) and func.attr in WARP_LEVEL:
        return True
    if isinstance(func, ast.Name) and func.id in WARP_LEVEL:
        return True
    # (the pipeline's resolver wraps the backend's, which resolves names)
    resolve = getattr(getattr(resolver, "resolver", resolver), "resolve", None)
    if resolve is None or not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    try:
        obj = resolve(func, parsed)
    except Exception:           # noqa: BLE001 - a name the resolver cannot follow
        return False
    return getattr(obj, "__name__", None) in WARP_LEVEL


__all__ = ["exiting_checks", "is_exiting_check", "warp_level", "WARP_LEVEL", "EXITING"]
