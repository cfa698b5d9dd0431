"""Check helpers for real numba-cuda kernels, typed per call by numba.

`_sk_load(a, idx, code, fb, flag)` and friends are `@overload`ed: for an array the overload
generates (once per array type and index type) code that compares each integer component of the
index with its axis' extent, records a failure on the cold side and skips the access; for
anything else (tuples, records, user types) it is the plain subscript. So which subscripts are
array accesses is decided by numba's own typing, never guessed from syntax.
"""
from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda import types
from numba.cuda.extending import overload

from .. import failures
from ..frontend.python import INDEXED_ATOMICS

# -- failure recording (the cold side) ------------------------------------------------------


# Overloads rather than cuda.jit(device=True) functions: those would compile for the current
# device, and kernels must also compile to PTX where there is no GPU.


def _sk_record(fb, flag, code, index, size, axis):
    raise NotImplementedError("only callable inside a kernel")


def _sk_skip(fb):
    raise NotImplementedError("only callable inside a kernel")


@overload(_sk_record, target="cuda")
def _ov_record(fb, flag, code, index, size, axis):
    def impl(fb, flag, code, index, size, axis):
        flag[0] = 1
        if cuda.atomic.cas(fb, 0, 0, code) == 0:
            fb[1] = index
            fb[2] = size
            fb[3] = axis
            fb[4] = cuda.threadIdx.x
            fb[5] = cuda.threadIdx.y
            fb[6] = cuda.threadIdx.z
            fb[7] = cuda.blockIdx.x
            fb[8] = cuda.blockIdx.y
            fb[9] = cuda.blockIdx.z
    return impl


@overload(_sk_skip, target="cuda")
def _ov_skip(fb):
    def impl(fb):
        if (cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and cuda.threadIdx.z == 0
                and cuda.blockIdx.x == 0 and cuda.blockIdx.y == 0 and cuda.blockIdx.z == 0):
            cuda.atomic.add(fb, 10, 1)
    return impl


assert failures.SKIPPED == 10 and failures.INDEX == 1 and failures.BLOCK == 7

# -- stubs the rewritten code calls -----------------------------------------------------------


def _sk_load(array, index, code, fb, flag):
    raise NotImplementedError("only callable inside a kernel")


def _sk_store(array, index, value, code, fb, flag):
    raise NotImplementedError("only callable inside a kernel")


def _make_atomic_stub(op):
    def stub(*args):
        raise NotImplementedError("only callable inside a kernel")
    stub.__name__ = stub.__qualname__ = f"_sk_atomic_{op}"
    return stub


ATOMIC_STUBS = {op: _make_atomic_stub(op) for op in INDEXED_ATOMICS}

# -- code generation per (array type, index type) -------------------------------------------------


def _components(index_ty):
    return list(index_ty.types) if isinstance(index_ty, types.BaseTuple) else [index_ty]


def _plan(array_ty, index_ty):
    """(checks, scalar, fallback_index): checks = [(position, axis, component type)]."""
    comps = _components(index_ty)
    tupled = isinstance(index_ty, types.BaseTuple)
    ndim = array_ty.ndim
    consuming = [c for c in comps if not isinstance(c, (types.NoneType, types.EllipsisType))]
    checks, axis, scalar = [], 0, True
    for pos, comp in enumerate(comps):
        if isinstance(comp, types.EllipsisType):
            axis = ndim - (len(consuming) - _consumed_before(comps, pos))
            scalar = False
            continue
        if isinstance(comp, types.NoneType):
            scalar = False
            continue
        if isinstance(comp, types.Integer) and axis < ndim:
            checks.append((pos, axis, comp))
        elif not isinstance(comp, types.Integer):
            scalar = False
        axis += 1
    if len(consuming) < ndim:
        scalar = False
    zero_parts = []
    for pos, comp in enumerate(comps):
        if isinstance(comp, types.Integer):
            zero_parts.append("0")
        else:
            zero_parts.append(f"idx[{pos}]" if tupled else "idx")
    fallback = f"({', '.join(zero_parts)},)" if tupled else zero_parts[0]
    return checks, scalar, fallback, tupled


def _consumed_before(comps, pos):
    return sum(1 for c in comps[:pos]
               if not isinstance(c, (types.NoneType, types.EllipsisType)))


def _check_lines(checks, tupled, action):
    lines = []
    for pos, axis, comp in checks:
        ix = f"idx[{pos}]" if tupled else "idx"
        lines.append(f"    i{pos} = {ix}")
        lines.append(f"    n{pos} = arr.shape[{axis}]")
        if comp.signed:
            cond = f"i{pos} < -n{pos} or i{pos} >= n{pos}"
            as_int = f"i{pos}"
        elif comp.bitwidth < 64:
            cond = f"int64(i{pos}) >= n{pos}"
            as_int = f"int64(i{pos})"
        else:
            cond = f"i{pos} >= uint64(n{pos})"
            as_int = f"int64(i{pos})"
        lines.append(f"    if {cond}:")
        lines.append(f"        _sk_record(fb, flag, code + {pos}, {as_int}, n{pos}, {axis})")
        lines.append(f"        {action}")
    return lines


def _zero_of(dtype):
    try:
        return np.dtype(str(dtype)).type(0)
    except TypeError:
        return None


def _generate(kind, array_ty, index_ty, extra_args=(), atomic_op=None):
    checks, scalar, fallback, tupled = _plan(array_ty, index_ty)
    zero = _zero_of(array_ty.dtype)
    namespace = {"_sk_record": _sk_record, "int64": np.int64, "uint64": np.uint64,
                 "cuda": cuda, "ZERO": zero}
    extra = "".join(f", {a}" for a in extra_args)
    if kind == "load":
        result = "ZERO" if (scalar and zero is not None) else f"arr[{fallback}]"
        body = _check_lines(checks, tupled, f"return {result}")
        body.append("    return arr[idx]")
    elif kind == "store":
        body = _check_lines(checks, tupled, "return")
        body += ["    if flag[0] == 0:", "        arr[idx] = value"]
    else:
        body = _check_lines(checks, tupled, "return ZERO")
        body += ["    if flag[0] != 0:", "        return ZERO",
                 f"    return cuda.atomic.{atomic_op}(arr, idx{extra})"]
    value = ", value" if kind == "store" else ""
    args = "arr, idx" + value + extra + ", code, fb, flag"
    src = f"def impl({args}):\n" + "\n".join(body) + "\n"
    exec(compile(src, f"<safekern {kind} check>", "exec"), namespace)
    return namespace["impl"]


def _static_getitem(container_ty, index_ty, kind):
    """Non-arrays: the plain subscript (a literal index stays literal for tuples/records)."""
    literal = getattr(index_ty, "literal_value", None)
    if isinstance(container_ty, types.BaseTuple) and not isinstance(container_ty, types.UniTuple) \
            and literal is None:
        return None         # numba retries with literal argument types
    sub = repr(literal) if literal is not None else "idx"
    if kind == "load":
        src = f"def impl(arr, idx, code, fb, flag):\n    return arr[{sub}]\n"
    else:
        src = f"def impl(arr, idx, value, code, fb, flag):\n    arr[{sub}] = value\n"
    ns = {}
    exec(compile(src, "<safekern passthrough>", "exec"), ns)
    return ns["impl"]


@overload(_sk_load, target="cuda")
def _ov_load(arr, idx, code, fb, flag):
    if isinstance(arr, types.Array):
        return _generate("load", arr, idx)
    return _static_getitem(arr, idx, "load")


@overload(_sk_store, target="cuda")
def _ov_store(arr, idx, value, code, fb, flag):
    if isinstance(arr, types.Array):
        return _generate("store", arr, idx)
    return _static_getitem(arr, idx, "store")


def _register_atomic(op):
    if op == "cas":
        def typer(arr, idx, old, val, code, fb, flag):
            if isinstance(arr, types.Array):
                return _generate("atomic", arr, idx, ("old", "val"), atomic_op="cas")
    else:
        def typer(arr, idx, val, code, fb, flag):
            if isinstance(arr, types.Array):
                return _generate("atomic", arr, idx, ("val",), atomic_op=op)
    overload(ATOMIC_STUBS[op], target="cuda")(typer)


for _op in INDEXED_ATOMICS:
    _register_atomic(_op)


def namespace() -> dict:
    """What the rewritten code's names are bound to, for real numba-cuda kernels."""
    ns = {"_sk_load": _sk_load, "_sk_store": _sk_store, "_sk_skip": _sk_skip,
          "_sk_cuda": cuda, "_sk_int32": types.int32, "_sk_slice": slice}
    for op, stub in ATOMIC_STUBS.items():
        ns[f"_sk_atomic_{op}"] = stub
    return ns
