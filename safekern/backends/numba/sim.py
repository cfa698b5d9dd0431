"""Check helpers for the CUDA simulator (NUMBA_ENABLE_CUDASIM=1): plain Python.

The same contract as intrinsics.py, so the rewritten source is identical; the check runs before
the access, so numba's NumPy-backed IndexError never fires first.
"""
from __future__ import annotations

import threading

import numpy as np

from ... import failures
from ...frontend.python import INDEXED_ATOMICS

_lock = threading.Lock()


def _is_array(obj) -> bool:
    return isinstance(obj, np.ndarray) or (
        hasattr(obj, "shape") and hasattr(obj, "dtype") and hasattr(obj, "__getitem__")
        and not isinstance(obj, (tuple, np.generic)))


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _thread_ids():
    t = threading.current_thread()
    tid, bid = getattr(t, "threadIdx", None), getattr(t, "blockIdx", None)
    if tid is None:
        return (0, 0, 0), (0, 0, 0)
    return (tid.x, tid.y, tid.z), (bid.x, bid.y, bid.z)


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
    comps = idx if isinstance(idx, tuple) else (idx,)
    ndim = len(arr.shape)
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
            n = arr.shape[axis]
            i = int(comp)
            if i < -n or i >= n:
                _record(fb, flag, code + pos, i, n, axis)
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
    if not _is_array(arr):
        return arr[idx]
    if not _check(arr, idx, code, fb, flag):
        return _fallback(arr, idx)
    return arr[idx]


def _sk_store(arr, idx, value, code, fb, flag):
    if not _is_array(arr):
        arr[idx] = value
        return
    if _check(arr, idx, code, fb, flag) and flag[0] == 0:
        arr[idx] = value


def _make_atomic(op):
    from numba.cuda.simulator.kernelapi import FakeCUDAAtomic

    fn = getattr(FakeCUDAAtomic(), op)

    def helper(arr, idx, *rest):
        *values, code, fb, flag = rest
        if not _check(arr, idx, code, fb, flag) or flag[0] != 0:
            return arr.dtype.type(0)
        return fn(arr, idx, *values)

    helper.__name__ = f"_sk_atomic_{op}"
    return helper


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
    _record(fb, flag, code, v0, v1, v2)


def _make_division(op, any_type: bool):
    """`a op b` with a zero divisor recorded (integers; any type when `any_type`) instead of
    raising; the stand-in is what a divisor of 1 gives, as on the GPU."""
    import operator

    apply = {"floordiv": operator.floordiv, "mod": operator.mod,
             "truediv": operator.truediv}[op]

    def helper(a, b, code, fb, flag):
        checked = any_type or (_is_int(a) and _is_int(b))
        if checked and b == 0:
            _record(fb, flag, code, int(a) if _is_int(a) else 0, 0, 0)
            return apply(a, type(b)(1))
        return apply(a, b)

    helper.__name__ = f"_sk_div_{op}" + ("_any" if any_type else "")
    return helper


def _sk_extent(arr, axis):
    return arr.shape[axis] if _is_array(arr) and axis < len(arr.shape) else -1


def namespace() -> dict:
    from numba import cuda

    ns = {"_sk_load": _sk_load, "_sk_loadv": _sk_load, "_sk_store": _sk_store, "_sk_skip": _sk_skip,
          "_sk_buffer": lambda buffer: buffer,     # the simulator passes the array itself
          "_sk_cuda": cuda, "_sk_int32": np.int32, "_sk_slice": slice,
          "_sk_flag_array": lambda: np.zeros(1, np.int32),     # one per thread: local
          "_sk_extent": _sk_extent, "_sk_put": _sk_put}
    for op in INDEXED_ATOMICS:
        ns[f"_sk_atomic_{op}"] = _make_atomic(op)
    ns["_sk_fail"] = _sk_fail
    for op in ("floordiv", "mod", "truediv"):
        for any_type in (False, True):
            helper = _make_division(op, any_type)
            ns[helper.__name__] = helper
    return ns
