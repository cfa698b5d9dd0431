"""numba's `jit` functions called from a checked kernel, made checked: numba-cuda's own
(numba.cuda.random's generators) and the user's `@numba.njit` / `@numba.jit` helpers.

`numba.cuda.random`'s generators take the states array and an index and read and write
`states[index]` (`x = xoroshiro128p_uniform_float32(states, tid)`); more threads than states is
a common bug, and numba's functions are plain `numba.jit` functions no check reaches -- on a GPU
the neighbouring memory of the states is overwritten. A call of one of them from a checked
kernel is a call of its checked copy: the same Python function rewritten as a checked device
function (`safekern.jit(device=True)`), so `states[index]` is checked where numba's code does it
and the failure reported there, in that device function, naming the kernel that called it. The
functions they call are looked up again through numba's module, so a generator's call of
`xoroshiro128p_next` is of the checked copy too.

A user's `@numba.njit` function called from a kernel (numba-cuda compiles it for the GPU as it
would a device function) is a call of its checked copy the same way. Where safekern cannot
rewrite it (a construct the front end refuses), the call stays a call of numba's function and
the kernel's build warns that its accesses are unchecked (`refused`), as for a plain
`@cuda.jit(device=True)` function.

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


_refused: dict = {}           # id(user's jit function) -> (the function, why not)


def _is_jit_function(obj) -> bool:
    """A CPU dispatcher of numba's `jit`/`njit` that numba-cuda compiles for the GPU when a
    kernel calls it: not one given explicit signatures (numba compiles those for the CPU only,
    and refuses the call on the device: "using cpu function on device")."""
    return type(obj).__name__ == "CPUDispatcher" and callable(getattr(obj, "py_func", None)) \
        and getattr(obj, "_can_compile", False)


def checked_copy(obj):
    """The checked device function a call of `obj` compiles, where `obj` is one of numba's
    library functions above or a user's jit function; None for anything else, and for a jit
    function safekern cannot rewrite (`refused` says why)."""
    library = _library().get(id(obj)) is obj
    if make is None or not (library or _is_jit_function(obj)) or id(obj) in _refused:
        return None
    copy = _checked.get(id(obj))
    if copy is None:
        with _lock:
            copy = _checked.get(id(obj))
            if copy is None:
                try:
                    copy = make(obj.py_func if hasattr(obj, "py_func") else obj,
                                _options(obj))
                    if not library:
                        copy.rewritten          # (refused now, not at the kernel's build)
                except Exception as err:      # noqa: BLE001 -- numba compiles it unchecked
                    if library or not _is_safekern_error(err):
                        raise
                    _refused[id(obj)] = (obj, f"{type(err).__name__}: {err.problem}")
                    return None
                _checked[id(obj)] = copy
    return copy


def refused(obj) -> str | None:
    """Why a user's jit function is compiled unchecked (its copy was refused), or None."""
    found = _refused.get(id(obj))
    return found[1] if found is not None and found[0] is obj else None


def _options(obj) -> dict:
    """The options of numba's function that a checked device function takes too."""
    options = getattr(obj, "targetoptions", None) or {}
    return {k: options[k] for k in ("fastmath",) if options.get(k)}


def _is_safekern_error(err) -> bool:
    return hasattr(err, "problem") and type(err).__module__.startswith("safekern")


__all__ = ["RANDOM", "checked_copy", "refused"]
