"""The call chain of numba device functions (safekern/call_chains.py's mechanism, as CUDA C
has it): a failure inside a device function names the call sites it came through.

A device function whose rewrite can record a failure -- a check of its own, or a call of a
device function that takes a chain -- takes a hidden `_sk_cs` (an int64) after the failure
buffer and flag (`takes_chain`, an analysis). Then (`thread_chain`, the rewrite):

- each of its checks carries `(CODE, _sk_cs)` where it carried `CODE`: the backend's helpers
  record `CODE ^ _sk_cs` on their failure path only (lowering.py, sim.py); a kernel's checks
  carry their plain code, as before;
- each call of a device function that takes a chain passes, after the flag, the frame id of
  its call site (a kernel: `_sk_int64(id)`, an int64 numba does not type as a literal, which
  would compile the callee once per call site) or `((_sk_cs << FRAME_BITS) | id) & MASK` (a device function):
  `call_chains.extend`. The call sites are registered by checks.py (FailureSite "call").

A device function without a check (all proven, or none) takes no chain and its callers pass
none. Runs last in pipeline._finish, on the main rewrite and each launch variant, with the
device functions that form calls (specialised ones may check less).
"""
from __future__ import annotations

import ast

from ... import call_chains, check_kinds
from ...failures import site_code
from . import names
from .trees import walk

#: Calls of these record a failure (their code: see _code_position).
RECORDING = check_kinds.helpers("python")


def call_site_code(parsed, call: ast.Call, callee_name: str) -> int:
    """The failure code of a call site of `callee_name` in the function `parsed`."""
    return site_code(parsed.filename, call.lineno, call.col_offset, parsed.shown_name, "call",
                     callee_name)


def callee_takes_chain(function) -> bool:
    """The checked device function `function`'s rewrite takes `_sk_cs`."""
    return bool(getattr(getattr(function, "rewritten", None), "call_chain", False))


def _calls(body):
    for node in (n for stmt in body for n in walk(stmt)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            yield node


def takes_chain(body, calls: dict) -> bool:
    """A device function with this (final) body records failures: a check of its own, or a
    call of a device function (`calls`: generated name -> function) that takes a chain."""
    for call in _calls(body):
        name = call.func.id
        if name in calls:
            if callee_takes_chain(calls[name]):
                return True
        elif name.startswith(RECORDING):
            return True
    return False


def _code_position(call: ast.Call):
    """Where a recording helper's call carries its code: `_sk_fail(code, v0, v1, v2, fb,
    flag)`, the others `(..., code, fb, flag)`."""
    if call.func.id == names.FAIL:
        return 0
    for k, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == names.FB:
            return k - 1
    return None


def _chain_argument(code: int, chain: bool) -> ast.expr:
    """What a call at site `code` passes: its frame id, or the caller's chain extended by it."""
    fid = call_chains.frame_id(code)
    if not chain:
        return ast.Call(ast.Name(names.INT64, ast.Load()), [ast.Constant(fid)], [])
    shifted = ast.BinOp(ast.Name(names.CHAIN, ast.Load()), ast.LShift(),
                        ast.Constant(call_chains.FRAME_BITS))
    return ast.BinOp(ast.BinOp(shifted, ast.BitOr(), ast.Constant(fid)), ast.BitAnd(),
                     ast.Constant(call_chains.MASK))


def _passes_flag(call: ast.Call) -> bool:
    """The call passes the hidden flag (checks._pass_hidden: a checked function's call)."""
    return any(isinstance(a, ast.Name) and a.id == names.FLAG for a in call.args) or \
        any(k.arg == names.FLAG for k in call.keywords)


def _pass_chain(call: ast.Call, value: ast.expr) -> None:
    """The chain after the flag, where checks._pass_hidden put the flag."""
    for k, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == names.FLAG:
            call.args.insert(k + 1, ast.copy_location(value, call))
            return
    call.keywords.append(ast.keyword(names.CHAIN, ast.copy_location(value, call)))


def thread_chain(body, *, chain: bool, calls: dict, call_codes: dict, parsed) -> None:
    """Edit `body` (in place): with `chain` (the function takes `_sk_cs`) its checks carry
    `(code, _sk_cs)`; the calls of device functions that take a chain pass it (module doc)."""
    if not chain and not calls:
        return                      # (nothing to edit: a kernel calling no device function)
    for call in list(_calls(body)):
        name = call.func.id
        if name in calls:
            if callee_takes_chain(calls[name]):
                _pass_chain(call, _chain_argument(call_codes[name], chain))
        elif chain and name == parsed.name and _passes_flag(call):
            # a recursive call (its own name): its chain extended by the call site
            _pass_chain(call, _chain_argument(call_site_code(parsed, call, parsed.shown_name),
                                              chain))
        elif chain and name.startswith(RECORDING):
            k = _code_position(call)
            if k is not None and k >= 0:
                code = call.args[k]
                call.args[k] = ast.copy_location(
                    ast.Tuple([code, ast.Name(names.CHAIN, ast.Load())], ast.Load()), code)


__all__ = ["call_site_code", "callee_takes_chain", "takes_chain", "thread_chain", "RECORDING"]
