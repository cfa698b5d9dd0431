"""Barrier phases for the race summary (races.py): how many barriers a thread has passed.

A phase is `(block_lo, block_hi, grid_lo, grid_hi)`: the number of block barriers (any barrier:
a grid sync orders a block too) and of grid syncs passed before an access, each an interval
(`hi` None: unbounded). Two accesses whose grid intervals are disjoint are ordered for every
pair of threads; whose block intervals are disjoint, for two threads of one block. Only where
both are one and the same number are two accesses surely unordered.
"""
from __future__ import annotations


def passing(phase: tuple, counts: tuple, *, ranged: bool = False) -> tuple:
    """The phase after passing `counts` = (block, grid, uncounted) barriers from `phase`:
    `uncounted` names the counts ("block", "grid") that a call may raise by any amount (a
    device function that synchronises; `cuda.syncwarp()`, which orders only some threads of a
    block); `ranged`: the barriers run a number of times not known (a loop). Where the count
    is not known, only its lower bound stays."""
    block, grid, uncounted = counts
    bl, bh, gl, gh = phase
    if "block" in uncounted or (ranged and block):
        bh = None
    elif block:
        bl, bh = bl + block, None if bh is None else bh + block
    if "grid" in uncounted or (ranged and grid):
        gh = None
    elif grid:
        gl, gh = gl + grid, None if gh is None else gh + grid
    return bl, bh, gl, gh


def join(a: tuple, b: tuple) -> tuple:
    """The phase after one of two branches: the hull of both."""
    def hi(x, y):
        return None if x is None or y is None else max(x, y)
    return min(a[0], b[0]), hi(a[1], b[1]), min(a[2], b[2]), hi(a[3], b[3])


_SYNC_NAMES = frozenset({"syncthreads", "syncthreads_count", "syncthreads_and",
                         "syncthreads_or", "syncwarp", "sync", "this_grid", "cg"})


def may_synchronise(fn, depth: int = 0) -> bool:
    """Might a device function (numba's dispatcher, safekern's, its Python function) run a
    barrier, `syncwarp` or a grid sync? Read from the names its code uses, following the
    functions it calls through its globals; anything not readable may."""
    py = getattr(fn, "py_func", fn)
    code = getattr(py, "__code__", None)
    if code is None or depth > 8:
        return True
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack += [k for k in c.co_consts if hasattr(k, "co_names")]
    if names & _SYNC_NAMES:
        return True
    scope = getattr(py, "__globals__", {})
    return any(hasattr(scope.get(n), "py_func") and may_synchronise(scope[n], depth + 1)
               for n in names if scope.get(n) is not fn)


__all__ = ["passing", "join", "may_synchronise"]
