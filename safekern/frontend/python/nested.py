"""Nested functions and lambdas in a kernel or device function: which ones are checked.

numba compiles a nested function (a closure) in one of two ways:

- **inlined** where every use of it is a direct call (`f(x)`, `(lambda j: a[j])(i)`): its body
  becomes part of the enclosing function, its free variables the enclosing function's
  variables. Such a closure is checked like the enclosing code -- its accesses call the check
  helpers with the enclosing function's failure buffer `_sk_fb` and flag `_sk_flag` (closure
  variables), its statements get failure exits as a device function's do -- and it is renamed
  `_sk_devc<n>_<name>`: a call of it is then a check call for the passes after this one (the
  enclosing code tests the flag after the statement calling it, as after a checked device
  function's call, so a failing thread skips to the next barrier or leaves; a loop calling it
  is not versioned).
- **compiled on its own** where it is used as a value (passed to a function, returned, stored
  in a tuple; numba's MakeFunctionToJitFunction), with only constant free variables: it cannot
  reach the failure buffer. Its accesses are left to numba and each is reported unchecked in
  `check_report()` with the reason; a checked device function cannot be called there (it
  needs the buffer) and is refused.

A closure whose name is bound more than once in the function, or that is decorated, or that
is nested in one compiled on its own, is compiled on its own too as far as checking goes (left
unchecked, reported). A barrier inside a checked closure is refused: the enclosing code would
not know it waits there. Comprehensions are checks.py's (refused with subscripts).
"""
from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from . import exits, names
from .trees import walk

#: Checked closures are renamed with this prefix (a check call's: see exits.is_check_call).
CLOSURE = names.DEVICE + "c"

AS_VALUE = ("in a nested function or lambda used as a value (passed, returned or stored), "
            "which numba compiles on its own: it cannot reach the failure buffer")
REBOUND = ("in a nested function whose name {name!r} is bound more than once in the "
           "function (which one a call runs is not known here)")
DECORATED = "in a decorated nested function"

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Verdict:
    name: str | None = None        # the new name of a checked named closure
    reason: str = ""               # why it is left unchecked ("" where it is checked)


def position(node) -> tuple:
    return (type(node).__name__, getattr(node, "lineno", None),
            getattr(node, "col_offset", None), getattr(node, "end_lineno", None),
            getattr(node, "end_col_offset", None))


def _bindings(fn) -> Counter:
    """How many times each name is bound anywhere in `fn` (its nested scopes included)."""
    count = Counter()
    for n in walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            count[n.id] += 1
        elif isinstance(n, ast.arg):
            count[n.arg] += 1
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                n is not fn:
            count[n.name] += 1
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                count[name] += 2
        elif isinstance(n, ast.alias):
            count[(n.asname or n.name).split(".")[0]] += 1
        elif isinstance(n, ast.ExceptHandler) and n.name:
            count[n.name] += 1
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            count[n.name] += 1
        elif isinstance(n, ast.MatchMapping) and n.rest:
            count[n.rest] += 1
    return count


class Closures:
    """The verdict on every nested function and lambda of `fn` (the function as parsed), and
    the uses of checked named closures to rename."""

    def __init__(self, fn, nests: bool | None = None):
        """`nests`: whether `fn` holds a nested function or lambda, where known (parse.py's
        ParsedFunction.mentioned)."""
        self.verdicts: dict[tuple, Verdict] = {}
        self.renamed: dict[tuple, tuple[str, str]] = {}     # Name position -> (old, new)
        if nests is None:
            nests = any(n is not fn and isinstance(n, _FUNCTIONS) for n in walk(fn))
        if not nests:
            return                                  # (most functions: nothing to do)
        parents = {}
        for node in walk(fn):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        bindings = _bindings(fn)
        serial = 0
        for node in walk(fn):                     # outer functions before inner ones
            if node is fn or not isinstance(node, _FUNCTIONS):
                continue
            scope = parents[id(node)]
            while scope is not fn and not isinstance(scope, _FUNCTIONS):
                scope = parents[id(scope)]
            outer = self.verdicts.get(position(scope)) if scope is not fn else None
            parent = parents[id(node)]
            name, target = None, None
            if isinstance(node, ast.Lambda):
                if isinstance(parent, ast.Assign) and parent.value is node and \
                        len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
                    target = parent.targets[0]
                    name = target.id
                elif not (isinstance(parent, ast.Call) and parent.func is node):
                    self.verdicts[position(node)] = Verdict(reason=AS_VALUE)
                    continue
            else:
                name = node.name
            if outer is not None and outer.reason:
                verdict = Verdict(reason=outer.reason)
            elif getattr(node, "decorator_list", None):
                verdict = Verdict(reason=DECORATED)
            elif name is None:
                verdict = Verdict()                   # (lambda ...)(...): called at once
            elif bindings[name] != 1:
                verdict = Verdict(reason=REBOUND.format(name=name))
            else:
                uses = [n for n in walk(scope) if isinstance(n, ast.Name) and
                        n.id == name and isinstance(n.ctx, ast.Load)]
                if all(isinstance(parents.get(id(u)), ast.Call) and parents[id(u)].func is u
                       for u in uses):
                    new = f"{CLOSURE}{serial}_{name}"
                    serial += 1
                    for use in uses + ([target] if target is not None else []):
                        self.renamed[position(use)] = (name, new)
                    verdict = Verdict(name=new)
                else:
                    verdict = Verdict(reason=AS_VALUE)
            self.verdicts[position(node)] = verdict

    def verdict(self, node) -> Verdict:
        return self.verdicts.get(position(node), Verdict(reason=AS_VALUE))

    def rename(self, node: ast.Name) -> str | None:
        """The new name of a use (or a lambda's assignment target) of a checked closure."""
        found = self.renamed.get(position(node))
        return found[1] if found is not None and found[0] == node.id else None


def rewrite(visitor, verdict: Verdict, node, is_access):
    """`node` (a nested function or lambda) as the checking rewrite `visitor` leaves it:
    checked where numba inlines it into the enclosing function (it reaches the failure buffer
    and flag as closure variables; the statements calling it test the flag afterwards, as
    after a checked device function's call); left to numba, each access reported unchecked
    with the reason, where it is used as a value. Defaults and decorators are the enclosing
    function's expressions."""
    ctx = visitor.ctx
    node.args.defaults = [visitor.visit(d) for d in node.args.defaults]
    node.args.kw_defaults = [d if d is None else visitor.visit(d)
                             for d in node.args.kw_defaults]
    if not isinstance(node, ast.Lambda):
        node.decorator_list = [visitor.visit(d) for d in node.decorator_list]
    if verdict.reason:
        report_unchecked(ctx, node, verdict.reason, is_access)
        return node
    barrier = barrier_inside(ctx, node)
    if barrier is not None:
        raise ctx.error(barrier, "a barrier inside a nested function or lambda is not "
                                 "supported (a thread that failed a check would leave before "
                                 "it); call a @safekern.jit(device=True) function instead")
    if isinstance(node, ast.Lambda):
        node.body = visitor.visit(node.body)
        return node
    body = []
    for stmt in node.body:
        new = visitor.visit(stmt)
        body += new if isinstance(new, list) else [new]
    node.body = with_failure_exits(ctx, body) or [ast.copy_location(ast.Pass(), node)]
    if verdict.name is not None:
        node.name = verdict.name
    return node


def report_unchecked(ctx, node, reason: str, is_access) -> None:
    """Every access in `node` (left as it is) reported unchecked; a call needing the failure
    buffer there (a checked device function, the function itself) refused."""
    for n in walk(node):
        if isinstance(n, ast.Subscript) and is_access(n):
            kind = "load" if isinstance(n.ctx, ast.Load) else "store"
            ctx.register_unchecked(kind, n.value, n, reason)
        elif isinstance(n, ast.Call):
            role = ctx.resolver.classify_call(n.func, ctx.parsed)
            if role is not None and role[0] == "atomic" and n.args:
                ctx.register_unchecked("atomic", n.args[0], n, reason)
            elif role is not None and role[0] in ("device", "self"):
                raise ctx.error(n, "a checked device function cannot be called inside a "
                                   "nested function or lambda that is used as a value (numba "
                                   "compiles it on its own, without the failure buffer); call "
                                   "the nested function directly, or make it a "
                                   "@safekern.jit(device=True) function")


def barrier_inside(ctx, node):
    """The first call in `node` that waits at a barrier (or a grid sync), else None."""
    for n in walk(node):
        if isinstance(n, ast.Call):
            role = ctx.resolver.classify_call(n.func, ctx.parsed)
            if role is not None and (role[0] in ("barrier", "grid_sync") or (
                    role[0] == "device" and getattr(role[1], "has_barriers", False))):
                return n
    return None


class _Resolver:
    """The backend's resolver, plus the checked device functions the rewrite renamed."""

    def __init__(self, ctx):
        self.ctx = ctx

    def classify_call(self, func, parsed):
        if isinstance(func, ast.Name) and func.id in self.ctx.device_calls:
            return ("device", self.ctx.device_calls[func.id])
        if isinstance(func, ast.Name) and func.id.startswith(names.PREFIX):
            return None
        return self.ctx.resolver.classify_call(func, parsed)


def with_failure_exits(ctx, body: list) -> list:
    """A checked closure's statements with failure exits, as a device function's (it may be
    entered with the flag set; a failing statement skips the rest, loops are left)."""
    return exits.add_failure_exits(body, kind="device", has_barriers=False,
                                   resolver=_Resolver(ctx), parsed=ctx.parsed)


__all__ = ["Closures", "Verdict", "CLOSURE", "position", "rewrite", "report_unchecked",
           "barrier_inside", "with_failure_exits"]
