"""Body versioning: a function whose indices are all known on entry is checked once, there (a
rewrite).

A device function gathering from arrays at indices its caller computed (fbpic's field gather,
`Fr_grid[iz_lower, ir_lower]` and 17 more accesses like it, with iz_lower, ir_lower parameters)
cannot prove its accesses: the caller's clamps are not its facts. Checked where they are, the
accesses each put a compare and a branch before the load, so the loads issue one after the
other instead of all together (fbpic's gather: 3,353 PTX instructions for numba's 1,083, 1.21x
its time on an H100). But every index is known on entry: the body becomes

    if _sk_within(Fr_grid, (iz_lower, ir_lower)) & _sk_within(...) & ...:
        <the body with those accesses unchecked>
    else:
        <the body, every check in place>

so the common case runs numba's own code behind one branch, and a failing access is still
caught, by the same check, with its index, where it happens.

What this assumes, and checks:
- the test evaluates each covered access's index as the access does: its components are
  arithmetic (`+`, `-`, `*`, unary `-`) of integer constants and names the body never assigns
  (parameters, globals), so the value on entry is the value at the access, and evaluating it
  early reads no memory, calls nothing and cannot fail; the array is a name the body never
  assigns;
- `_sk_within(array, index)` is the check's own condition (each integer component `-n <= i < n`,
  negative indices wrapping as numba's do) for an array and an index of integers only, and
  False for anything else (a slice, a tuple of unknown kind): the checked body then runs. An
  access under a branch that is not taken only makes the test stricter than it needs to be;
- the body has no loop (versioning.py versions loops), no barrier, no warp-level function (the
  lanes of a warp may take different copies, and must meet at one call), no device call and
  nothing that binds names in nested scopes.
"""
from __future__ import annotations

import ast
import copy

from . import names
from .bindings import assigned
from .exit_mode import warp_level
from .trees import copy_tree, walk
from .unchecked import Unchecker, is_check_call

BODY_REASON = "checked once on entry to the function at line {line} (every index is known " \
              "there); the function runs with checks when that fails"

#: Fewer accesses than this are not worth a second copy of the body (compile time, code size).
MIN_COVERED = 3

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult)
_NOT_COPIED = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
               ast.ClassDef, ast.Lambda, ast.Global, ast.Nonlocal, ast.Try, ast.With,
               ast.AsyncWith, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await,
               ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class BodyVersioner:
    """Finds the accesses of a loop-free body that can be tested on entry and makes the
    versioned body (see module doc)."""

    def __init__(self, loops, *, mark, flag_tested: bool):
        self.loops = loops                # the LoopVersioner: what may not be copied
        self.mark = mark                  # mark(call, status, reason)
        self.flag_tested = flag_tested

    def _meets_other_lanes(self, node) -> bool:
        return isinstance(node, ast.Call) and warp_level(node.func, self.loops.resolver,
                                                         self.loops.parsed)

    def version(self, fn: ast.FunctionDef, body: list) -> list:
        """`body`, or `[if <entry tests>: <fast copy> else: <body>]`."""
        if not body or any(isinstance(n, _NOT_COPIED) for s in body for n in walk(s)):
            return body
        if any(self.loops.has_barrier_or_device_call(s) for s in body) or any(
                self._meets_other_lanes(n) for s in body for n in walk(s)):
            return body
        bound = assigned(body)
        covered, tests, seen = [], [], set()
        for call in [n for s in body for n in walk(s) if is_check_call(n)]:
            if call.func.id.startswith(names.ATOMIC) or not self._known_on_entry(call, bound):
                continue
            covered.append(call)
            key = ast.dump(call.args[0]) + ast.dump(call.args[1])
            if key not in seen:
                seen.add(key)
                tests.append(ast.Call(ast.Name(names.WITHIN, ast.Load()),
                                      [copy.deepcopy(call.args[0]),
                                       copy.deepcopy(call.args[1])], []))
        if len(covered) < MIN_COVERED:
            return body
        codes = {c.args[-3].value for c in covered}
        fast = [Unchecker(codes, flag_tested=self.flag_tested).visit(s) for s in copy_tree(body)]
        for call in covered:
            self.mark(call, "hoisted", BODY_REASON.format(line=fn.lineno))
        test = tests[0]
        for more in tests[1:]:          # `&`: every test evaluated, no branch between them
            test = ast.BinOp(test, ast.BitAnd(), more)
        out = ast.If(test=test, body=fast, orelse=body)
        setattr(out, names.COLD_BODY, True)     # (its else: a checked copy, cold_records.py)
        for n in walk(out.test):
            ast.copy_location(n, body[0])
        return [ast.copy_location(out, body[0])]

    def _known_on_entry(self, call, bound) -> bool:
        array, index = call.args[0], call.args[1]
        code = call.args[-3]
        if not isinstance(array, ast.Name) or array.id in bound or \
                not isinstance(code, ast.Constant):
            return False
        comps = index.elts if isinstance(index, ast.Tuple) else [index]
        return all(_entry_arithmetic(c, bound) for c in comps)


def _entry_arithmetic(node, bound) -> bool:
    """Integer arithmetic of constants and names not assigned in the body: its value on entry
    is its value anywhere in the body, and computing it cannot fail."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return node.id not in bound and not node.id.startswith(names.PREFIX)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _ARITHMETIC) and _entry_arithmetic(node.left, bound) and \
            _entry_arithmetic(node.right, bound)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd)) and \
            _entry_arithmetic(node.operand, bound)
    return False


__all__ = ["BodyVersioner", "BODY_REASON", "MIN_COVERED"]
