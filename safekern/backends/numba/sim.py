"""Check helpers for the CUDA simulator (NUMBA_ENABLE_CUDASIM=1): plain Python.

The same contract as intrinsics.py, so the rewritten source is identical; the check runs before
the access, so numba's NumPy-backed IndexError never fires first.

Every access of a checked kernel calls one of these, so their cost is the simulator's cost of
checking (issue 29: a pair-counting kernel ran 10x slower checked). The common case -- the
simulator's own array, an index of ints one per axis, in bounds -- is decided from the array's
NumPy shape read directly (`_shape`, `_within`); reading `shape` and `dtype` through the
in-kernel array wrapper's __getattr__ (which is also a sync-point hook) cost most of the time.
"""
from __future__ import annotations

import threading

import numpy as np

from ... import failures
from ...frontend.python import INDEXED_ATOMICS, names

_lock = threading.Lock()

#: Integer index types (bool is not one), tested by identity first: the fast path's test.
_INTS = frozenset({int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                   np.uint64, np.intp, np.uintp})


def _simulator_arrays():
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray, FakeWithinKernelCUDAArray

    return FakeWithinKernelCUDAArray, FakeCUDAArray


_WITHIN, _FAKE = _simulator_arrays()


def _shape(obj):
    """The shape of an array, None for anything else (a tuple, a record, a user type)."""
    kind = type(obj)
    if kind is _WITHIN:                   # how a kernel sees a device array
        return obj.__dict__["_item"]._ary.shape
    if kind is np.ndarray:                # local and shared arrays, host arrays
        return obj.shape
    if kind is _FAKE:
        return obj._ary.shape
    if kind is tuple or kind in _INTS:
        return None
    if isinstance(obj, np.ndarray) or (
            hasattr(obj, "shape") and hasattr(obj, "dtype") and hasattr(obj, "__getitem__")
            and not isinstance(obj, (tuple, np.generic))):
        return tuple(obj.shape)
    return None


def _within(shape, idx) -> bool:
    """Certainly in bounds: integer components, no more than the axes, each within its axis
    (an int or NumPy integer; anything else -- slices, None, ... -- goes the full way)."""
    if type(idx) in _INTS:
        return bool(shape) and -shape[0] <= idx < shape[0]
    if type(idx) is not tuple or len(idx) > len(shape):
        return False
    for comp, n in zip(idx, shape):
        if type(comp) not in _INTS or not -n <= comp < n:
            return False
    return True


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _thread_ids():
    t = threading.current_thread()
    tid, bid = getattr(t, "threadIdx", None), getattr(t, "blockIdx", None)
    if tid is None:
        return (0, 0, 0), (0, 0, 0)
    return (tid.x, tid.y, tid.z), (bid.x, bid.y, bid.z)


def _code(code, position: int = 0) -> int:
    """The code a failure records: a check's code (plus its index component's position), in a
    device function that takes the call chain XOR the chain (`(code, chain)`:
    frontend/python/call_chain.py). Only on the failure path."""
    if type(code) is tuple:
        return (int(code[0]) + position) ^ int(code[1])
    return code + position


def _record(fb, flag, code, index, size, axis):
    flag[0] = 1
    thread, block = _thread_ids()
    # Each value as its int64 slot holds it (a uint64 >= 2**63 as on the GPU, with its bit in
    # slot UNSIGNED), before the slot is taken: a value that does not fit must not leave the
    # record half written (issue 29: index, size and thread read back as 0).
    slots = [failures.slot_value(v) for v in (index, size, axis)]
    with _lock:
        if int(fb[failures.CODE]) != 0:
            return
        fb[failures.CODE] = code
        for k, (value, unsigned) in enumerate(slots):
            fb[failures.INDEX + k] = value
            fb[failures.UNSIGNED] = int(fb[failures.UNSIGNED]) | (unsigned << k)
        for k in range(3):
            fb[failures.THREAD + k] = thread[k]
            fb[failures.BLOCK + k] = block[k]


def _check(arr, idx, code, fb, flag) -> bool:
    shape = _shape(arr)
    if _within(shape, idx):
        return True
    comps = idx if isinstance(idx, tuple) else (idx,)
    ndim = len(shape)
    consuming = [c for c in comps if c is not None and c is not Ellipsis]
    axis = 0
    for pos, comp in enumerate(comps):
        if comp is Ellipsis:
            before = sum(1 for c in comps[:pos] if c is not None and c is not Ellipsis)
            axis = ndim - (len(consuming) - before)
            continue
        if comp is None:
            continue
        if _is_int(comp) and axis < ndim:
            n = shape[axis]
            i = int(comp)
            if i < -n or i >= n:
                _record(fb, flag, _code(code, pos), i, n, axis)
                return False
        axis += 1
    return True


def _zero_record(arr):
    """A record of zeros, wrapped as the simulator wraps records read inside a kernel (so that
    `r[i].x` works on the stand-in as on a real element)."""
    from numba.cuda.simulator.cudadrv.devicearray import (FakeCUDAArray,
                                                           FakeWithinKernelCUDAArray)

    zeros = np.zeros(1, dtype=arr.dtype)
    if isinstance(arr, FakeWithinKernelCUDAArray):
        return FakeWithinKernelCUDAArray(FakeCUDAArray(zeros))[0]
    return zeros[0]


def _fallback(arr, idx):
    """The stand-in a failed load gives: zero, a record of zeros, or a view at index 0."""
    comps = idx if isinstance(idx, tuple) else (idx,)
    zeros = tuple(0 if _is_int(c) else c for c in comps)
    scalar = all(_is_int(c) for c in comps) and len(comps) >= len(arr.shape)
    if scalar:
        return arr.dtype.type(0) if arr.dtype.fields is None else _zero_record(arr)
    try:
        return arr[zeros if isinstance(idx, tuple) else zeros[0]]
    except IndexError:
        return arr[0:0]


def _sk_load(arr, idx, code, fb, flag):
    shape = _shape(arr)
    if shape is None or _within(shape, idx) or _check(arr, idx, code, fb, flag):
        return arr[idx]
    return _fallback(arr, idx)


def _sk_store(arr, idx, value, code, fb, flag):
    shape = _shape(arr)
    if shape is None:
        arr[idx] = value
    elif (_within(shape, idx) or _check(arr, idx, code, fb, flag)) and flag[0] == 0:
        arr[idx] = value


def _make_atomic(op, exits: bool = False):
    from numba.cuda.simulator.kernelapi import FakeCUDAAtomic

    fn = getattr(FakeCUDAAtomic(), op)

    def helper(arr, idx, *rest):
        *values, code, fb, flag = rest
        if not _check(arr, idx, code, fb, flag):
            if exits:
                raise ThreadEnds
            return arr.dtype.type(0)
        if flag[0] != 0:
            return arr.dtype.type(0)
        return fn(arr, idx, *values)

    helper.__name__ = f"_sk_atomic_{op}" + (names.EXIT if exits else "")
    return helper


# -- checks whose failure ends the thread (frontend/python/exit_mode.py) ------------------------

class ThreadEnds(Exception):
    """A check whose failure ends the thread on a GPU (PTX `exit`) failed: the simulated thread
    ends there too, its failure recorded (the kernel's entry, thread_entry, catches it). So the
    rewrite runs here as there: a kernel whose flag tests only such checks came before has them
    no more (frontend/python/flag_tests.py)."""


def _sk_load_exit(arr, idx, code, fb, flag):
    shape = _shape(arr)
    if shape is None or _within(shape, idx) or _check(arr, idx, code, fb, flag):
        return arr[idx]
    raise ThreadEnds


def _sk_store_exit(arr, idx, value, code, fb, flag):
    shape = _shape(arr)
    if shape is None:
        arr[idx] = value
        return
    if not (_within(shape, idx) or _check(arr, idx, code, fb, flag)):
        raise ThreadEnds
    if flag[0] == 0:
        arr[idx] = value


_ENTRY = compile("def _sk_entry(*args):\n"
                 "    try:\n"
                 "        return _sk_kernel_body(*args)\n"
                 "    except _sk_ThreadEnds:\n"
                 "        return None\n", __file__, "exec")


def thread_entry(fn, namespace: dict):
    """What the simulator runs in each thread for the kernel `fn` (defined in `namespace`, its
    globals): `fn`, ending the thread where a check that ends it failed (ThreadEnds). Defined
    in the same namespace, whose `cuda` the simulator swaps for its per-launch module."""
    namespace["_sk_kernel_body"] = fn
    namespace["_sk_ThreadEnds"] = ThreadEnds
    exec(_ENTRY, namespace)
    entry = namespace.pop("_sk_entry")
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(entry, attr, getattr(fn, attr))
    entry.__wrapped__ = fn
    return entry


def _sk_skip(fb):
    thread, block = _thread_ids()
    if thread == (0, 0, 0) and block == (0, 0, 0):
        with _lock:
            fb[failures.SKIPPED] = int(fb[failures.SKIPPED]) + 1


def _sk_put(arr, idx, value, flag):
    if flag[0] == 0:
        arr[idx] = value


def _sk_fail(code, v0, v1, v2, fb, flag):
    for v in (v0, v1, v2):
        if not (_is_int(v) or isinstance(v, (bool, np.bool_))):
            raise TypeError(f"a kernel's failure message can carry integers only, not "
                            f"{type(v).__name__} ({v!r})")
    _record(fb, flag, _code(code), v0, v1, v2)


def _make_division(op, any_type: bool):
    """`a op b` with a zero divisor recorded (integers; any type when `any_type`) instead of
    raising; the stand-in is what a divisor of 1 gives, as on the GPU."""
    import operator

    apply = {"floordiv": operator.floordiv, "mod": operator.mod,
             "truediv": operator.truediv}[op]

    def helper(a, b, code, fb, flag):
        checked = any_type or (_is_int(a) and _is_int(b))
        if checked and b == 0:
            _record(fb, flag, _code(code), int(a) if _is_int(a) else 0, 0, 0)
            return apply(a, type(b)(1))
        return apply(a, b)

    helper.__name__ = f"_sk_div_{op}" + ("_any" if any_type else "")
    return helper


def _sk_extent(arr, axis):
    shape = _shape(arr)
    return shape[axis] if shape is not None and axis < len(shape) else -1


def _sk_within(arr, idx):
    shape = _shape(arr)
    return shape is not None and len(shape) == (len(idx) if type(idx) is tuple else 1) and \
        _within(shape, idx)


def namespace() -> dict:
    from numba import cuda

    ns = {"_sk_load": _sk_load, "_sk_loadv": _sk_load, "_sk_store": _sk_store, "_sk_skip": _sk_skip,
          "_sk_buffer": lambda buffer: buffer,     # the simulator passes the array itself
          "_sk_cuda": cuda, "_sk_int32": np.int32, "_sk_int64": int, "_sk_slice": slice,
          "_sk_flag_array": lambda: np.zeros(1, np.int32),     # one per thread: local
          "_sk_extent": _sk_extent, "_sk_put": _sk_put, "_sk_within": _sk_within,
          "_sk_cold": lambda: None}     # (a compile hint for NVVM: cold_loops.py)
    for op in INDEXED_ATOMICS:
        ns[f"_sk_atomic_{op}"] = _make_atomic(op)
        ns[f"_sk_atomic_{op}{names.EXIT}"] = _make_atomic(op, exits=True)
    # Checks whose failure ends the thread on a GPU (frontend/python/exit_mode.py) end it here
    # too (ThreadEnds).
    ns["_sk_load_exit"] = ns["_sk_loadv_exit"] = _sk_load_exit
    ns["_sk_store_exit"] = _sk_store_exit
    ns["_sk_fail"] = _sk_fail
    for op in ("floordiv", "mod", "truediv"):
        for any_type in (False, True):
            helper = _make_division(op, any_type)
            ns[helper.__name__] = helper
    return ns
