"""Launch arguments as numba passes them, without numba's dispatcher (the short launch path).

`argument_types(args)` gives numba's types of a launch's arguments (numba's typeof, with
shortcuts for device arrays and Python scalars); `argument_plan(argtypes)` decides once per
tuple of types how each argument is passed; `marshal(plan, args, ...)` makes the kernel's
arguments exactly as numba's `_Kernel._prepare_args` does (host arrays are copied to the device,
and back through `retr`). `Numba` holds numba's internals this path uses, imported on first use
(never under the simulator).
"""
from __future__ import annotations

import ctypes

import numpy as np

from .payload import types

# -- the numba type of an argument, cheaply ---------------------------------------------------------

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_CLASS_TYPES: dict = {float: types.float64, bool: types.boolean, complex: types.complex128}
_DeviceNDArray = None


def _slow_type(value):
    """numba's typeof for a kernel argument (what numba-cuda's dispatcher uses)."""
    from numba.cuda.typing.typeof import Purpose, typeof

    ty = typeof(value, Purpose.argument)
    cls = value.__class__
    # Scalars of a numpy number class always have the same type: remember it by class.
    if isinstance(value, np.generic) and issubclass(cls, (np.integer, np.floating,
                                                          np.complexfloating, np.bool_)):
        _CLASS_TYPES[cls] = ty
    return ty


def argument_types(args) -> tuple:
    """numba's types of launch arguments (as its dispatcher computes them)."""
    out = []
    for a in args:
        cls = a.__class__
        if cls is _DeviceNDArray:
            out.append(a._numba_type_)
        elif cls is int and _INT64_MIN <= a <= _INT64_MAX:
            out.append(types.int64)
        else:
            ty = _CLASS_TYPES.get(cls)
            out.append(ty if ty is not None else _slow_type(a))
    return tuple(out)


# -- marshalling ------------------------------------------------------------------------------------

_ARRAY, _CTYPE, _PASS, _COMPLEX, _HALF, _OTHER = range(6)


def argument_plan(argtypes) -> tuple:
    """How numba's `_Kernel._prepare_args` passes each argument type, decided once."""
    plan = []
    for ty in argtypes:
        if isinstance(ty, types.Array):
            plan.append((_ARRAY, None))
        elif isinstance(ty, types.Integer):
            plan.append((_CTYPE, getattr(ctypes, f"c_{ty}")))
        elif ty == types.float16:
            plan.append((_HALF, None))
        elif ty == types.float64:
            plan.append((_CTYPE, ctypes.c_double))
        elif ty == types.float32:
            plan.append((_CTYPE, ctypes.c_float))
        elif ty == types.boolean:
            plan.append((_PASS, None))
        elif ty == types.complex64:
            plan.append((_COMPLEX, ctypes.c_float))
        elif ty == types.complex128:
            plan.append((_COMPLEX, ctypes.c_double))
        else:
            plan.append((_OTHER, ty))
    return tuple(plan)


class Numba:
    """numba's internals the short launch path uses, imported on first use (not under the
    simulator)."""

    loaded = False

    @classmethod
    def load(cls):
        if cls.loaded:
            return
        global _DeviceNDArray
        from cuda.core import LaunchConfig, launch
        from numba.cuda import _compat
        from numba.cuda.args import wrap_arg
        from numba.cuda.cudadrv import driver
        from numba.cuda.cudadrv.devicearray import DeviceNDArray
        from numba.cuda.errors import normalize_kernel_dimensions
        from numba.cuda.np import numpy_support

        cls.LaunchConfig, cls.launch, cls.wrap_arg = LaunchConfig, launch, wrap_arg
        cls.to_core_stream = driver._to_core_stream
        cls.normalize = normalize_kernel_dimensions
        cls.strides_from_shape = numpy_support.strides_from_shape
        cls.core_ge_1_0 = getattr(_compat, "CUDA_CORE_GE_1_0", True)
        _DeviceNDArray = DeviceNDArray
        cls.loaded = True


def marshal(plan, args, stream, retr, kernel) -> list:
    """Kernel arguments as numba's `_Kernel._prepare_args` makes them."""
    out = []
    append = out.append
    extend = out.extend
    for (kind, extra), val in zip(plan, args):
        if kind == _ARRAY:
            if val.__class__ is _DeviceNDArray:
                d = val._strided_memory_view_shim
            else:
                d = Numba.wrap_arg(val).to_device(retr, stream)
            itemsize = d.dtype.itemsize
            shape = d.shape
            layout = d._layout
            extend((0, 0, d.size, itemsize, d.ptr))
            extend(shape)
            extend(layout.strides_in_bytes or Numba.strides_from_shape(
                shape=shape, itemsize=itemsize, c_contiguous=layout.is_contiguous_c,
                f_contiguous=layout.is_contiguous_f))
        elif kind == _CTYPE:
            append(extra(val))
        elif kind == _PASS:
            append(val)
        elif kind == _COMPLEX:
            append(extra(val.real))
            append(extra(val.imag))
        elif kind == _HALF:
            append(ctypes.c_uint16(np.float16(val).view(np.uint16)))
        else:
            kernel._prepare_args(extra, val, stream, retr, out)
    return out


__all__ = ["argument_types", "argument_plan", "marshal", "Numba"]
