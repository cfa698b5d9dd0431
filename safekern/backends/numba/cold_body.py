"""A device function's versioned body: its checked copy compiled once, out of line (a pass on the
tree numba compiles for a GPU; the rewrite's source stays as it is).

Body versioning (frontend/python/body_versioning.py) makes a device function

    if <every covered index is in bounds on entry>:
        <the body, those accesses unchecked>
    else:
        <the body, every check in place>

The checked copy runs only where the test fails. But numba's `inline=True` (fbpic's gather:
`cuda.jit(device=True, inline=True)`) types and lowers the whole function again at every call,
and NVVM inlines what it calls into every caller: fbpic's field gather, called twice, compiled
two fast copies and two checked ones, each checked access with its failure records -- 4.6 s
for plain numba's 1.2 on an H200 (benchmarks/results/2026-11-28g-device-calls/call1).

`outline(tree, name)` returns the function with its else branch replaced by a call of a second
function holding that branch (`return _sk_checked_<name>(<its parameters>)`), and that second
function, whose first statement is `_sk_noinline()`: the function it is lowered into is marked
`noinline` in the LLVM, so NVVM keeps it a function (with `_sk_cold()`'s noduplicate asm alone,
NVVM still inlined fbpic's into both callers). The backend compiles it as a numba device
function of its own (`inline` off), once per argument types; so each call site holds the fast
copy and a call, and the checked copy is typed, lowered, optimised and assembled once (CPU,
tools/first_launch_profile.py: fbpic's first step 2.4-2.5x plain numba's compile -> 2.06x). It
is the same code: the parameters on entry are what the branch read (it starts the body), it
returns what the branch returned (None where it falls off the end, as the function did), the flag and the
failure buffer are parameters of both.

Only for a device function numba inlines (`inline=True` or "always": typed and lowered at each
call; one NVVM inlines anyway gets no call on any path), on a GPU, where the function is exactly
that `if` (the versioned body is the whole body) and its parameters are plain positional ones.
"""
from __future__ import annotations

import ast

from numba.cuda import types

from ...frontend.python import names
from ...frontend.python.trees import copy_tree
from .typed_once import intrinsic

PREFIX = "_sk_checked_"
NOINLINE = "_sk_noinline"


@intrinsic
def _sk_noinline(typingctx):
    """No code: the LLVM function being lowered is marked noinline."""

    def codegen(context, builder, sig, args):
        builder.function.attributes.add("noinline")
        return context.get_dummy_value()

    return types.none(), codegen


def _versioned(fn) -> ast.If | None:
    if len(fn.body) != 1:
        return None
    stmt = fn.body[0]
    if isinstance(stmt, ast.If) and getattr(stmt, names.COLD_BODY, False) and stmt.orelse:
        return stmt
    return None


def _plain_parameters(args: ast.arguments) -> bool:
    return not (args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or
                args.defaults or args.kw_defaults)


def outline(tree, name: str):
    """(tree, None) where there is nothing to outline, else (a copy of `tree` whose function
    calls the checked copy, a module defining the checked copy as `_sk_checked_<name>`)."""
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name] \
        if isinstance(tree, ast.Module) else []
    if len(fns) != 1 or _versioned(fns[0]) is None or not _plain_parameters(fns[0].args):
        return tree, None
    tree = copy_tree(tree)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    branch = _versioned(fn)
    helper = PREFIX + name
    params = [a.arg for a in fn.args.args]
    call = ast.Call(ast.Name(helper, ast.Load()), [ast.Name(p, ast.Load()) for p in params], [])
    first = branch.orelse[0]
    cold = ast.Expr(ast.Call(ast.Name(NOINLINE, ast.Load()), [], []))
    extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
    checked = ast.FunctionDef(
        name=helper, args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params],
                                        vararg=None, kwonlyargs=[], kw_defaults=[],
                                        kwarg=None, defaults=[]),
        body=[cold] + branch.orelse, decorator_list=[], returns=None, type_comment=None,
        **extra)
    checked = ast.copy_location(checked, first)
    branch.orelse = [ast.copy_location(ast.Return(call), first)]
    module = ast.fix_missing_locations(ast.Module([checked], type_ignores=[]))
    return ast.fix_missing_locations(tree), module


def bound(tree, namespace: dict, parsed, jit):
    """`tree` for compiling (outlined where it can be), the checked copy defined in `namespace`
    as numba's device function `jit(function)` under its name."""
    tree, checked = outline(tree, parsed.name)
    if checked is not None:
        namespace[NOINLINE] = _sk_noinline
        exec(compile(checked, parsed.filename, "exec"), namespace)
        name = PREFIX + parsed.name
        namespace[name] = jit(namespace[name])
    return tree


__all__ = ["outline", "bound", "PREFIX"]
