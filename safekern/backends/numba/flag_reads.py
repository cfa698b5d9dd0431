"""The rewrite's reads of its flag and of the failure buffer, compiled as intrinsics (a pass on
the tree numba compiles for a GPU; the rewrite's source stays as it is).

The rewrite reads the failure buffer's slot 0 at entry (`_sk_pend = _sk_fb[0]`), tests it where
a skipped launch must stop (`if _sk_pend != 0: _sk_skip(_sk_fb); return`: pending.py), clears
the thread's flag (`_sk_flag = _sk_flag_array()`, `_sk_flag[0] = 0`) and tests it after every
statement whose check may fail (`if _sk_flag[0]: return`, `if not _sk_flag[0]: ...`: exits.py).
Each of those subscripts is numba's getitem or setitem of an array -- typed, lowered through
its indexing (index casts, wraparound, strides) and cleaned up again by LLVM -- and each `if` of
the skip a block of its own: in a small kernel, that plumbing took more of numba's compile than
the checks: gather_scatter's variant took numba 0.064 s to PTX (its own kernel 0.036), 0.052
with these intrinsics; the first step of gather_scatter, spmv_csr and bfs_step, 1.78x, 2.31x and
1.89x plain numba's compile, 1.61x, 2.13x and 1.79x (tools/first_launch_profile.py, a CPU).

`compile_form(tree)` returns a copy of the tree where

- `_sk_pend = _sk_fb[0]` is `_sk_pend = _sk_pending(_sk_fb)` (the same load, still at entry:
  pending.py's reason for reading early holds);
- `if _sk_pend != 0: _sk_skip(_sk_fb); return` is `_sk_skip_exit(_sk_fb, _sk_pend)` (the
  compare, the count of the skipped launch by thread 0 of block 0 and the kernel's return,
  inside: one statement, where numba made an `if` and a `return` a block each);
- `_sk_flag = _sk_flag_array()` followed by `_sk_flag[0] = 0` is `_sk_flag = _sk_flag_clear()`;
- `_sk_flag[0]` read as a condition (an `if`'s or `while`'s test, under `not`, `and`, `or`, a
  conditional expression's test) is `_sk_failed(_sk_flag)`; other reads (a barrier's
  `syncthreads_or(_sk_flag[0])` takes an int) and every store stay numba's.

Only for the GPU: the simulator runs the rewrite as written.
"""
from __future__ import annotations

import ast

from llvmlite import ir
from numba.cuda import types

from ...frontend.python import names
from ...frontend.python.pending import PEND
from ...frontend.python.trees import copy_tree, fix_missing_locations, walk
from .lowering import array_data, count_skipped, flag_array, flag_clear
from .typed_once import intrinsic

PENDING = "_sk_pending"
SKIP_EXIT = "_sk_skip_exit"
FLAG_CLEAR = "_sk_flag_clear"
FAILED = "_sk_failed"


# -- the intrinsics ---------------------------------------------------------------------------


@intrinsic
def _sk_pending(typingctx, fb):
    """The failure buffer's slot 0 (int64): `fb[0]`, one load."""
    if not isinstance(fb, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(array_data(context, builder, fb, args[0]))

    return types.int64(fb), codegen


@intrinsic
def _sk_skip_exit(typingctx, fb, pend):
    """Where `pend != 0`: thread 0 of block 0 counts the skipped launch (_sk_skip), and the
    kernel returns -- numba's own `return`, lowered here (pending tests are a kernel's, never
    a device function's: the return ends the thread)."""
    if not isinstance(fb, types.Array) or not isinstance(pend, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        pending = builder.icmp_unsigned("!=", args[1], ir.Constant(args[1].type, 0))
        with builder.if_then(pending, likely=False):
            count_skipped(context, builder, fb, args[0])
            none = context.get_return_value(builder, types.none, context.get_dummy_value())
            context.call_conv.return_value(builder, none)
        return context.get_dummy_value()

    return types.none(fb, pend), codegen


@intrinsic
def _sk_flag_clear(typingctx):
    """The thread's flag (_sk_flag_array), cleared."""
    array_ty = types.Array(types.int32, 1, "C")

    def codegen(context, builder, sig, args):
        flag = flag_array(context, builder)
        builder.store(ir.Constant(ir.IntType(32), 0), array_data(context, builder, array_ty,
                                                                 flag))
        return flag

    return array_ty(), codegen


@intrinsic
def _sk_failed(typingctx, flag):
    """`flag[0] != 0`: the thread's flag is set."""
    if not isinstance(flag, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return builder.not_(flag_clear(context, builder, flag, args[0]))

    return types.boolean(flag), codegen


def namespace() -> dict:
    return {PENDING: _sk_pending, SKIP_EXIT: _sk_skip_exit, FLAG_CLEAR: _sk_flag_clear,
            FAILED: _sk_failed}


# -- the pass ---------------------------------------------------------------------------------


def _is_name(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _slot0(node, name: str, ctx) -> bool:
    """`name[0]` in context `ctx`."""
    return isinstance(node, ast.Subscript) and _is_name(node.value, name) and \
        isinstance(node.slice, ast.Constant) and node.slice.value == 0 and \
        type(node.slice.value) is int and isinstance(node.ctx, ctx)


def _call(func: str, *args) -> ast.Call:
    return ast.Call(ast.Name(func, ast.Load()), list(args), [])


def _pending_read(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        _is_name(stmt.targets[0], PEND) and _slot0(stmt.value, names.FB, ast.Load)


def _skip_test(stmt) -> bool:
    """`if _sk_pend != 0: _sk_skip(_sk_fb); return` (pending.py's test; any else)."""
    if not isinstance(stmt, ast.If) or len(stmt.body) != 2:
        return False
    test, (skip, ret) = stmt.test, stmt.body
    return isinstance(test, ast.Compare) and _is_name(test.left, PEND) and \
        len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq) and \
        isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0 and \
        isinstance(skip, ast.Expr) and isinstance(skip.value, ast.Call) and \
        _is_name(skip.value.func, names.SKIP) and \
        isinstance(ret, ast.Return) and ret.value is None


def _flag_made(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        _is_name(stmt.targets[0], names.FLAG) and isinstance(stmt.value, ast.Call) and \
        _is_name(stmt.value.func, names.FLAG_ARRAY) and not stmt.value.args


def _flag_cleared(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        _slot0(stmt.targets[0], names.FLAG, ast.Store) and \
        isinstance(stmt.value, ast.Constant) and stmt.value.value == 0


def _condition(node):
    """`node` (a condition), its flag reads as `_sk_failed(_sk_flag)`."""
    if _slot0(node, names.FLAG, ast.Load):
        return ast.copy_location(_call(FAILED, ast.Name(names.FLAG, ast.Load())), node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node.operand = _condition(node.operand)
    elif isinstance(node, ast.BoolOp):
        node.values = [_condition(v) for v in node.values]
    return node


def _statements(stmts: list) -> list:
    out = []
    for stmt in stmts:
        if _flag_cleared(stmt) and out and _flag_made(out[-1]):
            out[-1].value = ast.copy_location(_call(FLAG_CLEAR), out[-1].value)
            continue
        if _pending_read(stmt):
            stmt.value = ast.copy_location(_call(PENDING, ast.Name(names.FB, ast.Load())),
                                           stmt.value)
        elif _skip_test(stmt):
            # (one statement, no `if` and `return` of numba's: a block each, in a small kernel
            # a tenth of numba's compile; gather_scatter's variant 0.098 -> 0.092 s, a CPU)
            call = _call(SKIP_EXIT, ast.Name(names.FB, ast.Load()), ast.Name(PEND, ast.Load()))
            out.append(ast.copy_location(ast.Expr(ast.copy_location(call, stmt.test)), stmt))
            out += _statements(stmt.orelse) if stmt.orelse else []
            continue
        out.append(stmt)
    return out


def compile_form(tree, *, owned: bool = False):
    """A copy of `tree` (a module of one function) in the intrinsics' terms (module doc); the
    tree itself where it reads neither the flag nor the buffer. `owned`: `tree` is a copy
    already, the caller's own: edited, not copied again."""
    if not any(isinstance(n, ast.Name) and n.id in (names.FLAG, names.FB)
               for n in walk(tree)):
        return tree
    if not owned:
        tree = copy_tree(tree)
    for node in list(walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, _statements(block))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            node.test = _condition(node.test)
    return fix_missing_locations(tree)


__all__ = ["compile_form", "namespace"]
