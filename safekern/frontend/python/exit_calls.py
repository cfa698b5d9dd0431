"""Checks whose failure ends the thread get their own helpers (a rewrite, no analysis).

exit_mode.py says which checks of a kernel end a failing thread at once; each is renamed here
from `_sk_load`/`_sk_loadv`/`_sk_store`/`_sk_atomic_<op>` to the same name with `_exit`
appended (names.EXIT), which the backend binds to the helpers that record the failure and end
the thread (PTX `exit`; on the simulator the helpers raise ThreadEnds, which the kernel's
entry catches: backends/numba/sim.py). Every other check keeps its name and its flag.
"""
from __future__ import annotations

import ast

from . import names


def end_thread_at(calls) -> None:
    """Rename the check calls `calls` (of the tree being rewritten, in place)."""
    for call in calls:
        call.func = ast.copy_location(ast.Name(call.func.id + names.EXIT, ast.Load()),
                                      call.func)


__all__ = ["end_thread_at"]
