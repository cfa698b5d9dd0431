"""A versioned device function's checked body as a function of its own, where numba inlines the
device function into its callers (a pass on the tree numba compiles for a GPU; the rewrite's
source stays as it is).

body_versioning.py makes a device function whose indices are all known on entry

    if _sk_within(...) & ...:
        <the body, those accesses unchecked>
    else:
        <the body, every check in place>

Decorated `inline="always"` (or `inline=True`), numba inlines the function at its IR level into
every caller, both copies: fbpic's field gather, whose kernel calls its device function twice,
compiled four copies of its body, the two checked ones typed, lowered and scheduled for nothing
on every path that runs (numba's inlining pass 0.08 s plain, 0.37 s checked; the checked build
2.4x plain numba's compile). `outline(tree)` returns a copy whose `else` is
`return _sk_cold_<name>(<every parameter>)`, the checked body the whole of a second function,
`_sk_cold_<name>`, with the same parameters, which the backend compiles as a device function
numba does not inline (`inline="never"`) and NVVM may not either (`_sk_noinline()`, its first
statement, marks the LLVM function it is lowered into `noinline`): one copy, typed, lowered
and scheduled once, for every caller.
The else runs on entry, before the body assigns anything, so the parameters hold what the
checked body would have read; the callee returns what the body returns (numba unifies the two
returns' types as it would the body's own), and sets a flag of its own, copied to the caller's
after it returns, as the body would have set the caller's.
"""
from __future__ import annotations

import ast
import functools

from ...frontend.python import names
from ...frontend.python.trees import copy_tree

#: The outlined function of device function `name`: `_sk_cold_<name>`.
PREFIX = names.PREFIX + "cold_"
NOINLINE = names.PREFIX + "noinline"
FLAG_COPY = names.PREFIX + "cold_flag"      # the callee's flag array (see outline)
VALUE = names.PREFIX + "cold_value"         # what it returns


@functools.cache
def _noinline():
    """`_sk_noinline()`: no value; the function it is lowered into gets LLVM's `noinline`.
    (Made on first use: the simulator has no intrinsics and never outlines.)"""
    from numba.cuda import types

    from .typed_once import intrinsic

    def _sk_noinline(typingctx):
        def codegen(context, builder, sig, args):
            builder.function.attributes.add("noinline")
            return context.get_dummy_value()
        return types.none(), codegen
    return intrinsic(_sk_noinline)


def namespace() -> dict:
    return {NOINLINE: _noinline()}


def _versioned_body(fn: ast.FunctionDef):
    """The position in `fn.body` of the top-level `if` body_versioning.py made, or None."""
    for k, stmt in enumerate(fn.body):
        if isinstance(stmt, ast.If) and getattr(stmt, names.COLD_BODY, False):
            return k
    return None


#: The options the outlined function takes from its function's: code generation only (the
#: function's `link` files are linked once, with it).
_OPTIONS = ("debug", "opt", "lineinfo", "fastmath")


def options_for(device: bool, options: dict) -> dict | None:
    """numba's options for the outlined checked copy of a function decorated with `options`:
    for a device function numba inlines at its IR level (`inline="always"`, or True), the copy
    not inlined; None for any other (nothing is outlined)."""
    if not device or options.get("inline") not in (True, "always"):
        return None
    out = {k: v for k, v in options.items() if k in _OPTIONS}
    out.update(device=True, inline="never")
    return out


def bind(namespace: dict, name: str, options: dict, module) -> None:
    """The outlined function `name`, defined in `namespace` by the module's code, replaced
    there by numba's dispatcher of it (which the function's own code calls by that name)."""
    from numba import cuda

    from .options import quiet_config_warnings
    from .surface import numba_errors_in_user_terms

    fn = namespace[name]
    fn.__module__ = module
    with quiet_config_warnings(), numba_errors_in_user_terms():
        namespace[name] = cuda.jit(**options)(fn)


def outlined_name(fn_name: str) -> str:
    return PREFIX + fn_name


def outline(tree):
    """(tree, None) where the function has no versioned body or takes parameters a call cannot
    pass on as they came (`*args`, keyword-only, `**kwargs`); else (a copy of the module with
    the checked body outlined, the outlined function's name)."""
    fn = tree.body[0]
    args = fn.args
    at = _versioned_body(fn)
    if at is None or args.vararg or args.kwonlyargs or args.kwarg:
        return tree, None
    tree = copy_tree(tree)
    fn = tree.body[0]
    versioned = fn.body[at]
    name = outlined_name(fn.name)
    params = [a.arg for a in args.posonlyargs + args.args]
    mark = ast.Expr(ast.Call(ast.Name(NOINLINE, ast.Load()), [], []))
    cold = ast.FunctionDef(name=name, args=copy_tree(fn.args), body=[mark] + versioned.orelse,
                           decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(cold, fn)
    # The callee gets a flag array of its own, copied in and out: given the caller's, that one
    # would live in local memory on every path (a call takes its address), not in a register
    # (fbpic's gather: 1.06x -> 1.14x plain numba's run time on an H200).
    passed = [FLAG_COPY if p == names.FLAG else p for p in params]
    call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(p, ast.Load()) for p in passed], [])
    orelse = ast.parse(
        f"{FLAG_COPY} = {names.FLAG_ARRAY}()\n"
        f"{FLAG_COPY}[0] = {names.FLAG}[0]\n"
        f"{VALUE} = CALL\n"
        f"{names.FLAG}[0] = {FLAG_COPY}[0]\n"
        f"return {VALUE}\n").body
    orelse[2].value = call
    versioned.orelse = [ast.copy_location(stmt, versioned.orelse[0]) for stmt in orelse]
    ast.fix_missing_locations(versioned)
    tree.body.append(ast.fix_missing_locations(cold))
    return tree, name


__all__ = ["outline", "outlined_name", "options_for", "bind", "namespace"]
