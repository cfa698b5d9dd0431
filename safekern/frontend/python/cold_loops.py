"""The checked copies of versioned loops marked cold, for the compile only (a rewrite).

Loop versioning (versioning.py) runs a loop's checked copy only where the test before the loop
fails: where some access of the loop is out of bounds, or the test could not tell. NVVM unrolls
that copy like any loop, and with it every failure record in it: lud_perimeter's two checked
accesses in 16-iteration loops became 40 records, spmv's three 20, and their PTX took NVVM and
ptxas longer than the rest of the kernel (benchmarks/results/2026-11-27-numba-compile-records-
cpu.md). `mark_cold(tree)` returns a copy of a kernel's tree whose checked copies that still
hold a check start with `_sk_cold()`, which the backend lowers as a statement NVVM may not
duplicate (intrinsics.py): the copy stays one loop.

LLVM keeps rolled every loop around such a statement too, and inlines no function holding one
into two callers: so only a copy in no other loop is marked (a versioned loop is an innermost
loop; an outer loop around it, with the fast copy inside, may be unrolled as before), and only in
kernels, never in device functions (the backend asks for kernels only).

The copies are found by the attribute versioning.py sets on them (names.COLD_LOOP), not by a
statement in the rewrite: the rewrite's source -- what the kernel cache keys on and
tools/prover_snapshot.py compares -- is the same with or without this pass.
"""
from __future__ import annotations

import ast

from . import names
from .trees import add_children, copy_tree, walk
from .unchecked import is_check_call


def _cold(node) -> bool:
    # (a checked copy's checks end the thread in kernels that meet no other thread:
    # exit_mode.py; their `_exit` forms count)
    return isinstance(node, ast.For) and getattr(node, names.COLD_LOOP, False) and any(
        is_check_call(n, exits=True) for s in node.body for n in walk(s))


def _outermost_cold(tree) -> list:
    """The cold loops of `tree` inside no other loop (nor a nested function), in order."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        if _cold(node):
            found.append(node)
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.Lambda)) or (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not tree
                and not (isinstance(tree, ast.Module) and node in tree.body)):
            continue                    # (what is inside is in a loop, or another function)
        todo.extend(reversed(add_children(node, [])))   # (ast's order, less the contexts)
    return found


def mark_cold(tree):
    """`tree` (a kernel's module) itself where it has no cold loop, else a copy with
    `_sk_cold()` first in each."""
    if not _outermost_cold(tree):
        return tree
    tree = copy_tree(tree)
    for node in _outermost_cold(tree):
        call = ast.Call(ast.Name(names.COLD, ast.Load()), [], [])
        marker = ast.Expr(call)
        for n in (marker, call, call.func):
            ast.copy_location(n, node.body[0])
        node.body.insert(0, marker)
    return tree


__all__ = ["mark_cold"]
