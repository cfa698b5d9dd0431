"""numba-cuda's own device functions that index an array the kernel passes them, made checked.

`numba.cuda.random`'s generators take the states array and an index and read and write
`states[index]` (`x = xoroshiro128p_uniform_float32(states, tid)`); more threads than states is
a common bug, and numba's functions are plain `numba.jit` functions no check reaches -- on a GPU
the neighbouring memory of the states is overwritten. A call of one of them from a checked
kernel is a call of its checked copy: the same Python function rewritten as a checked device
function (`safekern.jit(device=True)`), so `states[index]` is checked where numba's code does it
and the failure reported there, in that device function, naming the kernel that called it. The
functions they call are looked up again through numba's module, so a generator's call of
`xoroshiro128p_next` is of the checked copy too.

The copies are made on first use, one per function (jit.py gives `make` at import; this module
imports no part of the backend).
"""
from __future__ import annotations

import sys
import threading

#: numba.cuda.random's functions that index the states array they are given
RANDOM = ("init_xoroshiro128p_state", "xoroshiro128p_next", "xoroshiro128p_jump",
          "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
          "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64")

_lock = threading.RLock()       # (a copy made calls for the copies of what it calls)
_checked: dict = {}           # id(numba's function) -> its checked copy
_ids: dict | None = None      # id(numba's function) -> numba's function
make = None                   # fn -> its checked device function (set by jit.py)


def _library() -> dict:
    """id -> function of numba.cuda.random's generators; empty (and asked again next time)
    while the user has not imported that module: no call can name one of them then, and a
    kernel's build does not import it (5 ms) for nothing."""
    global _ids
    if _ids is None:
        random = sys.modules.get("numba.cuda.random")
        if random is None:
            return {}
        _ids = {id(f): f for f in (getattr(random, n, None) for n in RANDOM) if f is not None}
    return _ids


def checked_copy(obj):
    """The checked device function a call of `obj` compiles, where `obj` is one of numba's
    library functions above; None for anything else."""
    found = _library().get(id(obj))
    if found is not obj or make is None:
        return None
    copy = _checked.get(id(obj))
    if copy is None:
        with _lock:
            copy = _checked.get(id(obj))
            if copy is None:
                copy = _checked[id(obj)] = make(getattr(obj, "py_func", obj))
    return copy


__all__ = ["RANDOM", "checked_copy"]
