"""Kernel checks beyond indices: `assert`, `raise` and division by zero (numba kernels).

numba-cuda ignores a kernel's exceptions unless it is compiled with debug=True, and an integer
division by zero gives a silent 0. Here each becomes a failure of its own kind on the same path
as a bounds failure (the failure buffer, first failure wins, the thread leaves as after a failed
access), raised on the host at the next sync point as
- `assert cond, msg`        -> safekern.KernelAssertionError (also an AssertionError);
- `raise Cls(msg, i)`       -> an exception that is both a safekern.KernelError and a Cls;
- `a // b`, `a % b`, b == 0 -> safekern.KernelZeroDivisionError (integers; any type with
                               SAFEKERN_FLOAT_DIVISION=raise, which checks `/` too).
A message may carry up to three integer values (f-string fields or extra arguments), recorded
by the failing thread: `raise ValueError(f"negative weight at {i}")`.

The functions here build the generated statements for `BoundsCheckRewriter`, which calls them
with its context; what they register goes into the failure table like an access's site.
"""
from __future__ import annotations

import ast

import numpy as np

from . import names
from .bindings import assigned
from .trees import walk

MAX_VALUES = 3       # failures.ARGS: the slots a failing thread records its message's values in


def _call(name, args, like) -> ast.Call:
    call = ast.Call(func=ast.Name(name, ast.Load()), args=args, keywords=[])
    for n in walk(call):
        if not hasattr(n, "lineno"):
            ast.copy_location(n, like)
    return ast.copy_location(call, like)


def _hidden():
    return [ast.Name(names.FB, ast.Load()), ast.Name(names.FLAG, ast.Load())]


def _fail(code: int, values, like) -> ast.stmt:
    """`_sk_fail(code, v0, v1, v2, fb, flag)`: record the failure, set the thread's flag."""
    padded = list(values) + [ast.Constant(0)] * (MAX_VALUES - len(values))
    return ast.copy_location(ast.Expr(_call(names.FAIL, [ast.Constant(code), *padded,
                                                         *_hidden()], like)), like)


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


class _Message:
    """A message template (str.format fields {0}..{2}) and the expressions that fill it."""

    def __init__(self, ctx, visit):
        self.ctx = ctx
        self.visit = visit
        self.values: list = []

    def _constant_text(self, expr):
        """A name or attribute that holds a str now (a global or closure message constant)."""
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return None
        value = self.ctx.lookup(expr) if hasattr(self.ctx, "lookup") else None
        return value if isinstance(value, str) else None

    def field(self, expr, spec: str = "") -> str:
        if len(self.values) == MAX_VALUES:
            raise self.ctx.error(expr, f"a kernel's failure message can carry at most "
                                       f"{MAX_VALUES} values")
        self.values.append(self.visit(expr))
        return "{" + str(len(self.values) - 1) + (":" + spec if spec else "") + "}"

    def text(self, expr) -> str:
        """The template of one message part, as str() of it would read."""
        if isinstance(expr, ast.Constant):
            return _literal(str(expr.value))
        constant = self._constant_text(expr)
        if constant is not None:
            return _literal(constant)
        if isinstance(expr, ast.JoinedStr):
            parts = []
            for value in expr.values:
                if isinstance(value, ast.Constant):
                    parts.append(_literal(str(value.value)))
                    continue
                spec = ""
                if value.format_spec is not None:
                    if not all(isinstance(v, ast.Constant) for v in value.format_spec.values):
                        raise self.ctx.error(value, "a format spec computed in the kernel is "
                                                    "not supported in a failure message")
                    spec = "".join(str(v.value) for v in value.format_spec.values)
                parts.append(self.field(value.value, spec))
            return "".join(parts)
        return self.field(expr)

    def repr_text(self, expr) -> str:
        """The template of one argument as repr() of it would read (in a tuple of args)."""
        if isinstance(expr, ast.Constant):
            return _literal(repr(expr.value))
        constant = self._constant_text(expr)
        if constant is not None:
            return _literal(repr(constant))
        if isinstance(expr, ast.JoinedStr):
            return "'" + self.text(expr) + "'"
        return self.field(expr)


def assert_statement(ctx, node: ast.Assert, visit) -> list:
    """`assert test, msg` -> `if not test: _sk_fail(...)` (or nothing, asserts switched off)."""
    if not ctx.settings.kernel_asserts:
        return [ast.copy_location(ast.Pass(), node)]
    condition = ast.unparse(node.test)          # as written: visiting rewrites it in place
    test = visit(node.test)
    if isinstance(node.test, ast.Constant) and node.test.value:
        ctx.register_failure("assert", node, message=None, status="eliminated",
                             reason="constant true condition")
        return [ast.copy_location(ast.Pass(), node)]
    message = _Message(ctx, visit)
    if node.msg is None:
        template = "assertion failed: " + _literal(condition)
    else:
        template = message.text(node.msg)
    code = ctx.register_failure("assert", node, message=template)
    failed = ast.copy_location(ast.UnaryOp(ast.Not(), test), node.test)
    return [ast.copy_location(ast.If(test=failed, body=[_fail(code, message.values, node)],
                                     orelse=[]), node)]


def raise_statement(ctx, node: ast.Raise, visit, resolve) -> list:
    """`raise Cls(args)` / `raise Cls` -> `_sk_fail(...)`; the thread then leaves as after a
    failed access (the failure exits pass sees the call)."""
    if node.exc is None:
        raise ctx.error(node, "a bare `raise` has nothing to re-raise in a kernel; raise an "
                              "exception class, e.g. raise ValueError(\"...\")")
    exc = node.exc
    call_args = []
    if isinstance(exc, ast.Call):
        if exc.keywords:
            raise ctx.error(exc, "keyword arguments of a raised exception are not supported "
                                 "in a kernel")
        call_args = exc.args
        exc = exc.func
    raised = resolve(exc)
    if not (isinstance(raised, type) and issubclass(raised, BaseException)):
        raise ctx.error(node.exc, f"`raise {ast.unparse(node.exc)}` in a kernel needs an "
                                  "exception class (built-in or your own), e.g. "
                                  "raise ValueError(\"...\")")
    if any(isinstance(a, ast.Starred) for a in call_args):
        raise ctx.error(node.exc, "starred arguments of a raised exception are not supported")
    message = _Message(ctx, visit)
    if len(call_args) == 1:
        template = message.text(call_args[0])
    elif call_args:
        template = "(" + ", ".join(message.repr_text(a) for a in call_args) + ")"
    else:
        template = ""
    name = f"{raised.__module__}:{raised.__qualname__}"
    code = ctx.register_failure("raise", node, message=template, exception=name)
    return [_fail(code, message.values, node)]


_DIVISIONS = {ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Div: "truediv"}


def is_division(op) -> bool:
    return type(op) in _DIVISIONS


def _nonzero_constant(expr, ctx=None) -> bool:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    if isinstance(expr, ast.Name) and ctx is not None:
        value = _frozen_global(ctx, expr.id)
        return value is not None and value != 0
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and \
        not isinstance(expr.value, bool) and expr.value != 0


def _frozen_global(ctx, name):
    """The number a global or closure variable the function never binds holds (numba freezes
    such values into the kernel when it compiles it, and the kernel cache keys on them), or
    None."""
    parsed = getattr(ctx, "parsed", None)
    if parsed is None:
        return None
    bound = getattr(ctx, "_bound_names", None)
    if bound is None:
        bound = ctx._bound_names = assigned(parsed.tree)
    if name in bound:
        return None
    for scope in (parsed.closure, parsed.globals):
        if name in scope:
            value = scope[name]
            if isinstance(value, (int, float, np.integer, np.floating)) and \
                    not isinstance(value, (bool, np.bool_)):
                return value
            return None
    return None


def division(ctx, left, op, right, original) -> ast.expr | None:
    """The checked form of `left op right`, or None where no check is made (not a division,
    `/` under numpy semantics, or a non-zero constant divisor: reported as eliminated)."""
    kind = _DIVISIONS.get(type(op))
    if kind is None or not getattr(ctx, "kernel_exceptions", True):
        return None
    any_type = ctx.settings.float_division == "raise"
    if kind == "truediv" and not any_type:
        return None
    shown = _literal(ast.unparse(original))
    if _nonzero_constant(original.right, ctx):
        ctx.register_failure("zero_division", original, message=None, status="eliminated",
                             reason="non-zero constant divisor")
        return None
    message = (f"division by zero in `{shown}`: `{_literal(ast.unparse(original.right))}` is "
               "0 (dividend {0})")
    code = ctx.register_failure("zero_division", original, message=message)
    helper = f"{names.DIVIDE}{kind}" + ("_any" if any_type else "")
    return _call(helper, [left, right, ast.Constant(code), *_hidden()], original)


def resolver_lookup(resolver, parsed):
    """`resolve(expr)`: what a name or attribute in the kernel means (the backend's resolver,
    else the function's closure, globals and builtins)."""
    resolve = getattr(resolver, "resolve", None)
    if resolve is not None:
        return lambda expr: resolve(expr, parsed)

    def lookup(expr):
        if isinstance(expr, ast.Name):
            return parsed.lookup(expr.id)
        if isinstance(expr, ast.Attribute):
            return getattr(lookup(expr.value), expr.attr, None)
        return None

    return lookup


__all__ = ["assert_statement", "raise_statement", "division", "is_division", "resolver_lookup", "MAX_VALUES"]
