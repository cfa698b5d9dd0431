"""A kernel's launch predicates (frontend/python/launch.py) as one function of a launch.

`compile_predicates(predicates)` -> `holds(args, config)`: True when every predicate holds for
these arguments (the user's, in order) and this launch configuration (griddim, blockdim, ...);
the launch may then take the kernel's launch variant, compiled without the checks they prove.
Anything unexpected -- an argument without `.shape`, a scalar that is not an integer, a
configuration numba would reject -- is False: the checked kernel runs. The cost is what the
predicates compare (a few attribute reads and integer compares): it is paid on every launch.
"""
from __future__ import annotations

import numpy as np


def _int(value) -> int:
    """A scalar argument's value, if the launch passes an integer (bool is not one here)."""
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError("not an integer")


def _dim3(dim) -> tuple:
    if type(dim) is int:
        return (dim, 1, 1)
    if isinstance(dim, tuple):
        if len(dim) == 3:
            return dim
        return tuple(dim) + (1,) * (3 - len(dim))
    return (dim.x, dim.y, dim.z)            # numba's Dim3


def compile_predicates(predicates):
    """`holds(args, config)` for these predicates (see the module doc), or None for none."""
    if not predicates:
        return None
    source = ("def holds(args, grid, block):\n    return " +
              " and ".join(p.python() for p in predicates) + "\n")
    namespace = {"_int": _int}
    exec(compile(source, "<safekern launch predicates>", "exec"), namespace)
    test = namespace["holds"]

    def holds(args, config) -> bool:
        try:
            return test(args, _dim3(config[0]), _dim3(config[1])) is True
        except Exception:          # noqa: BLE001 -- any doubt launches the checked kernel
            return False

    holds.source = source
    return holds


__all__ = ["compile_predicates"]
