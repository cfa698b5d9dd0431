"""A kernel's failure-flag tests that never see the flag set (an analysis), and the kernel
without them (a rewrite).

exits.py puts `if _sk_flag[0]: return` (or `break`) after each statement whose check may fail,
so a failing thread leaves; exit_mode.py then makes the checks of storing loops end the thread
themselves (`_sk_load_exit` and the like: PTX `exit` at the failure, no flag). A test after
such a check alone reads a flag nothing could have set: NVVM folds it away, but numba types and
lowers each one first (a load, a branch and a return block: stumpy's matrix-profile kernel held
sixteen). `redundant_flag_tests(body)` finds the tests that no statement able to set the flag
can reach; `without_flag_tests(body, found)` is the body without them.

What sets the flag: a call that is passed the flag (`_sk_flag`), but a proven store (`_sk_put`,
which only reads it) and a check that ends the thread (a name ending in `_exit`); an assignment
to the flag other than the prelude's `_sk_flag[0] = 0`. The state is followed through `if`
(joined), `for` and `while` (an iteration starts clear where the loop is entered clear, its
head sets nothing and an iteration started clear ends clear; `_loop`); any other compound
statement is looked into as a whole and its tests kept. A kernel entered with the flag clear
(its prelude) starts clean; only kernels with checks that end the thread are looked at (none
has barriers or grid syncs: exit_mode.py). Every backend's `_exit` checks end the thread --
the simulator's too (backends/numba/sim.py, ThreadEnds) -- so none sets the flag.
"""
from __future__ import annotations

import ast

from . import names
from .trees import add_children, walk

_READS_ONLY = (names.PUT,)
_ENDS = (ast.Return, ast.Break, ast.Continue, ast.Raise)


def _is_flag(node) -> bool:
    return isinstance(node, ast.Name) and node.id == names.FLAG


def is_flag_test(stmt) -> bool:
    """`if _sk_flag[0]: return|break` as exits.py writes it (no else)."""
    return (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and
            isinstance(stmt.body[0], (ast.Return, ast.Break)) and
            (stmt.body[0].__class__ is ast.Break or stmt.body[0].value is None) and
            isinstance(stmt.test, ast.Subscript) and _is_flag(stmt.test.value) and
            isinstance(stmt.test.slice, ast.Constant) and stmt.test.slice.value == 0)


def _clears(stmt) -> bool:
    """`_sk_flag[0] = 0`: the prelude's."""
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Subscript) and _is_flag(stmt.targets[0].value)
            and isinstance(stmt.value, ast.Constant) and stmt.value.value == 0)


def may_set_flag(node) -> bool:
    """Evaluating `node` (a statement or an expression) may set the flag."""
    for n in walk(node):
        if isinstance(n, ast.Call):
            if any(_is_flag(a) for a in n.args) or any(_is_flag(k.value)
                                                      for k in n.keywords):
                name = n.func.id if isinstance(n.func, ast.Name) else ""
                if name not in _READS_ONLY and not name.endswith(names.EXIT):
                    return True
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if any(_is_flag(x) for x in walk(t)):
                    return True
    return False


def redundant_flag_tests(body) -> list:
    """The flag tests of a kernel's statements (after its prelude) that no statement able to
    set the flag reaches, in source order."""
    found: list = []
    _block(body, True, found)
    return found


def _block(stmts, clean: bool, found) -> bool:
    """Follow `stmts` from `clean`; -> whether the flag is surely clear where they end (True
    where they never end: a return or break)."""
    for stmt in stmts:
        if is_flag_test(stmt):
            if clean:
                found.append(stmt)
            clean = True                  # (past a test the flag is clear)
        elif _clears(stmt):
            clean = True
        elif isinstance(stmt, ast.If):
            clean = clean and not may_set_flag(stmt.test)
            after_body = _block(stmt.body, clean, found)
            after_else = _block(stmt.orelse, clean, found)
            clean = after_body and after_else
        elif isinstance(stmt, (ast.For, ast.While)):
            clean = _loop(stmt, clean, found)
        elif isinstance(stmt, _ENDS):
            return True
        else:
            clean = clean and not may_set_flag(stmt)
    return clean


def _loop(stmt, clean: bool, found) -> bool:
    """A `for` or `while` from `clean`: each iteration starts clear if the loop is entered clear,
    its head sets nothing and an iteration started clear ends clear (a dry run of the body; a
    `continue` at this loop's level: only a body that sets nothing); it ends clear then, but
    where a `break` may leave it with the flag set. -> clear after it."""
    head = stmt.iter if isinstance(stmt, ast.For) else stmt.test
    sets = any(may_set_flag(s) for s in stmt.body)
    jumps = _jumps(stmt.body)
    start = clean and not may_set_flag(head)
    if start and sets and (ast.Continue in jumps or not _block(stmt.body, True, [])):
        start = False
    _block(stmt.body, start, found)
    after = start and not (sets and ast.Break in jumps)
    return _block(stmt.orelse, after, found) if stmt.orelse else after


def _jumps(stmts) -> set:
    """The kinds of `break`/`continue` among `stmts` that leave or restart their loop (not
    those of loops or functions nested in them)."""
    out, todo = set(), list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            out.add(type(node))
        elif isinstance(node, (ast.For, ast.While)):
            todo.extend(node.orelse)       # (its `else` is this loop's)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                   ast.ClassDef)):
            add_children(node, todo)       # (the children but the contexts)
    return out


def without_flag_tests(body, found) -> list:
    """`body` (edited in place) without the statements `found`; a block left empty holds
    `pass`."""
    drop = {id(s) for s in found}
    if not drop:
        return body

    def strip(stmts, keep_one: bool):
        out = [s for s in stmts if id(s) not in drop]
        for s in out:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(s, field, strip(inner, field == "body" or field == "finalbody"))
            for handler in getattr(s, "handlers", ()):
                handler.body = strip(handler.body, True)
        if keep_one and not out and stmts:
            out = [ast.copy_location(ast.Pass(), stmts[0])]
        return out

    return strip(body, False)


__all__ = ["redundant_flag_tests", "without_flag_tests", "may_set_flag", "is_flag_test"]
