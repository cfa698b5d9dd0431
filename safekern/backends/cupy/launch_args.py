"""The `args` of a RawKernel launch, taken as CuPy takes them (issue 30 item 4).

CuPy's launch (cupy/cuda/function.pyx, `_launch`, v14.2.0) does `len(args)` and then
`for a in args`: any sized iterable is accepted -- a tuple, a list, and also a bare
`cupy.ndarray`, whose rows become the arguments (cupyx's Delaunay code writes
`kernel((1,), (1,), (pred_values))`, a parenthesised array, and relies on it). The driver reads
as many arguments as the kernel has parameters, so extra ones are ignored. Each argument is then
turned into bytes by CuPy itself (`_pointer`: None, arrays, MemoryPointer, texture objects,
NumPy size-1 arrays, NumPy and Python scalars), which safekern leaves to CuPy's own launch.

What safekern adds: fewer arguments than parameters is a TypeError (CuPy would launch with
whatever the missing slots hold). A pointer argument a size counted from the pointer cannot
bound -- a raw address (a Python or NumPy integer), a view with a negative stride -- is passed
as CuPy passes it, unchecked, with an UncheckedWarning, and listed by check_report().
"""
from __future__ import annotations

import warnings

import numpy as np

from ..._stack import user_stacklevel
from ...errors import UncheckedWarning
from .program import Unchecked


def kernel_arguments(cp, args, info) -> tuple:
    """The arguments to launch `info`'s kernel with, one per parameter."""
    if isinstance(args, tuple):
        items = args
    elif isinstance(args, cp.ndarray):
        items = _array_rows(args)
    else:
        len(args)            # CuPy's own TypeError for an object without a length
        items = tuple(args)
    if len(items) < len(info.params):
        names = ", ".join(p.name or "?" for p in info.params)
        raise TypeError(f"kernel '{info.name}' takes {len(info.params)} arguments "
                        f"({names}), got {len(items)}")
    items = items[:len(info.params)]             # the driver reads no more than these
    return tuple(_unbounded(cp, arg, param, info.name, i) if param.is_pointer else arg
                 for i, (arg, param) in enumerate(zip(items, info.params)))


def _array_rows(arr) -> tuple:
    """`for a in arr` as CuPy iterates it: row i, as a pointer to row i. Of a contiguous array
    each row is given as the rest of the array from that row on, the memory a pointer derived
    from `arr` may reach (a row view alone would bound the kernel by one row)."""
    count = len(arr)                             # a 0-d array: CuPy's TypeError
    if not (arr.flags.c_contiguous and arr.size):
        return tuple(arr[i] for i in range(count))
    flat, step = arr.reshape(-1), arr.strides[0] // arr.itemsize
    return tuple(flat[i * step:] for i in range(count))


def _unbounded(cp, arg, param, kernel: str, position: int):
    """A pointer argument whose reach a kernel's hidden size cannot express, passed as CuPy
    passes it, unchecked, with an UncheckedWarning: a raw address (no size), and a view with
    a negative stride (`x[::-1]`: its kernel reaches memory before the pointer, which a size
    counted from the pointer cannot bound; cupyx's upfirdn takes such views)."""
    if isinstance(arg, cp.ndarray) and (arg._c_contiguous or arg._f_contiguous):
        return arg                               # (the common case, first: launches are hot)
    why = None
    if isinstance(arg, (int, np.integer)) and not isinstance(arg, (bool, np.bool_)):
        why = "a raw address, which has no size"
    elif isinstance(arg, cp.ndarray) and arg.size > 1 and any(s < 0 for s in arg.strides):
        why = ("a view with a negative stride, which reaches memory before its data pointer "
               "(pass cupy.ascontiguousarray(...) to have it checked)")
    if why is None:
        return arg
    warnings.warn(UncheckedWarning(
        f"argument {position} ('{param.name}') of kernel '{kernel}' is {why}: accesses "
        "through it are not checked"), stacklevel=user_stacklevel())
    return Unchecked(arg)


__all__ = ["kernel_arguments"]
