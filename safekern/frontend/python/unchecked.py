"""Check calls whose check is proven unnecessary, as the plain accesses they stand for (rewrite
helpers shared by the elimination and the loop versioning).

A proven access is in bounds, but the thread may already have failed: in a device function
(entered with the caller's flag set) and in a kernel with barriers (a failing thread runs on to
the next barrier), statements after a failure still run, and a plain store would write what a
failed load gave. There a proven store becomes `_sk_put` (which tests the flag) and a proven
atomic statement runs only while the flag is clear; elsewhere the failing thread leaves right
after the failing statement (exits.py), and only a store whose own value may come from a
failed check needs `_sk_put`.
"""
from __future__ import annotations

import ast

from . import names
from .exits import may_fail
from .transformer import Transformer
from .trees import walk


def is_check_call(node, *, exits: bool = False) -> bool:
    """A bounds check: `_sk_load`, `_sk_loadv` (a load in a loop, after the elimination),
    `_sk_store`, `_sk_atomic_<op>` (not assert/division); with `exits`, their `_exit` forms too
    (exit_calls.py's, after the failure exits)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    name = node.func.id
    if exits and name.endswith(names.EXIT):
        name = name[:-len(names.EXIT)]
    return name in (names.LOAD, names.LOADV, names.STORE) or name.startswith(names.ATOMIC)


def _flag_clear() -> ast.expr:
    flag = ast.Subscript(ast.Name(names.FLAG, ast.Load()), ast.Constant(0), ast.Load())
    return ast.Compare(flag, [ast.Eq()], [ast.Constant(0)])


def _located(node, like):
    for n in walk(node):
        ast.copy_location(n, like)
    return node


def plain_store(call: ast.Call, like, *, flag_tested: bool) -> ast.stmt:
    """A store without its check (see module doc for when it still tests the flag)."""
    array, index, value = call.args[0], call.args[1], call.args[2]
    if flag_tested or may_fail(value):
        put = ast.Call(ast.Name(names.PUT, ast.Load()),
                       [array, index, value, ast.Name(names.FLAG, ast.Load())], [])
        return ast.copy_location(ast.Expr(_located(put, call)), like)
    return ast.copy_location(ast.Assign([ast.Subscript(array, index, ast.Store())], value), like)


def plain(call: ast.Call) -> ast.expr:
    """A load or atomic check call without its check: the subscript, or numba's atomic."""
    fn = call.func.id
    if fn in (names.LOAD, names.LOADV):
        return ast.copy_location(ast.Subscript(call.args[0], call.args[1], ast.Load()), call)
    op = fn[len(names.ATOMIC):]
    atomic = ast.Attribute(ast.Attribute(ast.Name(names.CUDA, ast.Load()), "atomic", ast.Load()),
                           op, ast.Load())
    return _located(ast.Call(atomic, call.args[:-3], []), call)


def plain_atomic_statement(stmt: ast.Expr, call: ast.Call) -> ast.stmt:
    """`cuda.atomic.op(...)` as a statement that runs only while the thread's flag is clear."""
    guarded = ast.If(test=_located(_flag_clear(), stmt),
                     body=[ast.copy_location(ast.Expr(plain(call)), stmt)], orelse=[])
    return ast.copy_location(guarded, stmt)


def atomic_operands_may_fail(call: ast.Call) -> bool:
    """An atomic whose operands come from checks keeps its check: the checked atomic also
    tests the flag, so it does nothing after a failed operand."""
    return any(may_fail(a) for a in call.args[2:-3])


class Unchecker(Transformer):
    """The covered check calls (by failure code) become plain accesses; with `flag_tested`,
    stores test the flag and atomics (statements only) run while it is clear."""

    def __init__(self, codes, *, flag_tested: bool):
        self.codes = codes
        self.flag_tested = flag_tested

    def _covered(self, node) -> bool:
        code = node.args[-3]
        return isinstance(code, ast.Constant) and code.value in self.codes

    def visit_Expr(self, node):
        call = node.value
        if self.flag_tested and is_check_call(call) and call.func.id.startswith(names.ATOMIC) \
                and self._covered(call):
            call.args = [self.visit(a) for a in call.args]
            return plain_atomic_statement(node, call)
        self.generic_visit(node)
        call = node.value
        if is_check_call(call) and call.func.id == names.STORE and self._covered(call):
            return plain_store(call, node, flag_tested=self.flag_tested)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if is_check_call(node) and node.func.id != names.STORE and self._covered(node):
            return plain(node)
        return node


__all__ = ["is_check_call", "plain", "plain_store", "plain_atomic_statement",
           "atomic_operands_may_fail", "Unchecker"]
