"""Checks in checked copies record through one function (a pass on the tree numba compiles for
a GPU; the rewrite's source stays as it is).

A versioned loop's checked copy (frontend/python/versioning.py) and a versioned body's
(body_versioning.py) run only where the test before them failed. Their checks still each
carry the failure record inline -- a compare-and-swap, four stores and six special-register
reads, under a branch -- and where NVVM inlines or unrolls the copy, every one of them again:
fbpic's field gather, a device function inlined twice, held 72 records, all in checked copies,
for ptxas to schedule and allocate registers around. `compile_form(tree)` returns a copy of the
tree whose checks inside those copies are the `_cold` twins of their helpers (`_sk_load_cold`,
`_sk_store_exit_cold`, ...): the same check, whose record is a call of the module's one record
function (lowering.record_function). The checks elsewhere -- on the paths that run -- keep the
inline record (a call there costs the fast path: ABI registers, and no unrolling around it).

The copies are found by the attributes versioning.py and body_versioning.py set on them
(names.COLD_LOOP on the loop, names.COLD_BODY on the `if` whose else is the checked body).
"""
from __future__ import annotations

import ast

from ...frontend.python import names
from ...frontend.python.trees import copy_tree, walk
from .intrinsics import _load_typer, _store_typer
from .typed_once import intrinsic

COLD = "_cold"


def _load_twin(select: bool, exits: bool):
    """(`_sk_load[v][_exit]`, its `_cold` twin). One function per arity: numba's intrinsic
    reads the typer's parameters (as intrinsics._make_atomic)."""
    def typer(typingctx, arr, idx, code, fb, flag):
        return _load_typer(typingctx, arr, idx, code, fb, flag, select=select, exits=exits,
                           outlined=True)
    helper = "_sk_load" + ("v" if select else "") + (names.EXIT if exits else "")
    typer.__name__ = helper + COLD
    return helper, intrinsic(typer)


def _store_twin(exits: bool):
    """(`_sk_store[_exit]`, its `_cold` twin)."""
    def typer(typingctx, arr, idx, value, code, fb, flag):
        return _store_typer(typingctx, arr, idx, value, code, fb, flag, exits=exits,
                            outlined=True)
    helper = "_sk_store" + (names.EXIT if exits else "")
    typer.__name__ = helper + COLD
    return helper, intrinsic(typer)


#: helper -> its `_cold` twin's intrinsic (`_sk_load` -> `_sk_load_cold`, ...)
_COLD_TWINS = dict([_load_twin(select, exits) for select in (False, True)
                    for exits in (False, True)] + [_store_twin(exits) for exits in (False, True)])
_TWINS = {helper: helper + COLD for helper in _COLD_TWINS}


def namespace() -> dict:
    return {helper + COLD: twin for helper, twin in _COLD_TWINS.items()}


def _cold_copies(tree) -> list:
    """The statement lists of the checked copies in `tree`."""
    out = []
    for node in walk(tree):
        if isinstance(node, ast.For) and getattr(node, names.COLD_LOOP, False):
            out.append(node.body)
        elif isinstance(node, ast.If) and getattr(node, names.COLD_BODY, False):
            out.append(node.orelse)
    return out


def compile_form(tree, *, owned: bool = False):
    """`tree` itself where it has no checked copy, else a copy whose checks inside checked
    copies are the `_cold` twins (module doc); `owned`: `tree` is the caller's own copy,
    edited instead."""
    if not _cold_copies(tree):
        return tree
    if not owned:
        tree = copy_tree(tree)
    for block in _cold_copies(tree):
        for node in (n for stmt in block for n in walk(stmt)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in _TWINS:
                node.func = ast.copy_location(ast.Name(_TWINS[node.func.id], ast.Load()),
                                              node.func)
    return tree


__all__ = ["compile_form", "namespace"]
