"""Whether a kernel's failing checks may end the thread where they fail (an analysis).

exits.py makes a failing thread of a kernel without barriers leave after the statement that
failed, and a `for` loop run on to its end with the flag set (stores and atomics skipped). On
the GPU that costs: each check's cold path (the failure record) joins the loop again, so the
loop carries the flag and everything the record needs in registers, every store tests the flag,
and the record's stores to the failure buffer stop the compiler from keeping loads across it.
In a BFS step that is 40 registers instead of numba's 23 (75% occupancy) and three times the
instructions. A thread that leaves at the failing check (PTX `exit`, as the CUDA C checks do)
has nothing to join: same registers as numba's, the flag never set by the kernel's own checks.

Leaving at the check is what the thread would have done anyway, only earlier: everything it
would still run before leaving has no effect (exits.py: a statement after a failure runs only
if it stores, prints and calls nothing unchecked; a loop runs on only if its stores and atomics
test the flag). It is not the same where other threads wait for it or read its registers:

- block barriers and grid syncs (the flag scheme makes them failure-safe);
- warp-level functions (`syncwarp`, `shfl_*_sync`, votes, `match_*_sync`, `activemask`,
  `lanemask_lt`): the lanes of a loop that goes on after one lane failed still meet it there;
- device functions safekern does not rewrite (what they do is not known), and checked ones
  that do any of the above.

Only kernels with a checked access inside a loop use it (where the join costs), and kernels
whose straight runs check their gathers after loading them all (gathers.py: the checks'
joins would keep every index alive through the arithmetic after them; Perlin noise: 32
registers with the exit, numba's 32, 40 without). The pending test (pending.py) then precedes
every check, so that thread 0 of block 0 still counts a skipped launch before one of its
checks can end it (a deferred gather's load is no check: the test still overlaps the loads).
"""
from __future__ import annotations

import ast

from . import names
from .trees import walk

#: numba.cuda's warp-level functions: the lanes named meet there (or ask who is active).
WARP_LEVEL = frozenset((
    "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync",
    "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync", "activemask",
    "lanemask_lt"))

#: The check helpers whose failure may end the thread (divisions, asserts and raises keep
#: the flag: they are not in loops' hot paths).
EXITING = (names.LOAD, names.LOADV, names.STORE, names.ATOMIC)

_MAX_DEPTH = 8          # device functions calling device functions: beyond, not known


def is_exiting_check(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id.startswith(EXITING)


def checks_exit(body, *, device: bool, has_barriers: bool, grid_sync: bool, resolver,
                parsed) -> bool:
    """May the kernel's own failing checks end the thread at once (see module doc)?"""
    if device or has_barriers or grid_sync:
        return False
    deferred = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                   n.func.id == names.LOAD_CHECK for stmt in body for n in walk(stmt))
    if not deferred and not any(is_exiting_check(n) for stmt in body for loop in walk(stmt)
                                if isinstance(loop, (ast.For, ast.While)) for n in walk(loop)
                                if isinstance(n, ast.Call)):
        return False
    return not _meets_other_threads(body, resolver, parsed, 0)


def _meets_other_threads(body, resolver, parsed, depth: int) -> bool:
    """Does `body` (or a device function it calls) hold a barrier, a warp-level call or a
    call of code safekern does not see into?"""
    if depth > _MAX_DEPTH:
        return True
    for stmt in body:
        for call in walk(stmt):
            if not isinstance(call, ast.Call):
                continue
            if _warp_level(call.func, resolver, parsed):
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


def _warp_level(func, resolver, parsed) -> bool:
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


__all__ = ["checks_exit", "is_exiting_check", "WARP_LEVEL", "EXITING"]
