"""A new function object over a kernel's code, for the by-hand profiling tools.

safekern (like numba) keeps what it built on the function object it was given; a tool that
decorates the same benchmark kernel again, to time or inspect a cold build, needs a function
object nothing has seen yet. Only plain Python functions are copied; anything else is returned
as it is.
"""
from __future__ import annotations

import types


def fresh(fn):
    if not isinstance(fn, types.FunctionType):
        return fn
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__ = fn.__qualname__
    return copy


__all__ = ["fresh"]
