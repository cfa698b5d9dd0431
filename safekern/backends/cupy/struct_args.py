"""The extents of pointer fields inside struct arguments (frontend/c/struct_fields.py).

CuPy passes a struct by value as the bytes of a NumPy structured scalar (`numpy.void`, or a
NumPy array of one element): a field such as `Graph.nlist` holds a device address as an
integer. The launch reads each checked field's address at its C offset and asks CUDA which
allocation holds it (`cuMemGetAddressRange`, after `cudaPointerGetAttributes` says it is device
or managed memory): the field may reach from the address to the allocation's end. That is the
whole allocation the driver made -- with CuPy's memory pool, the pool's block, which holds the
array rounded up to 512 bytes and may hold others after it -- so an index past an array's end
but inside its block is not caught; one past the block is.

Whatever the launch cannot resolve (not a structured scalar, a layout whose size differs from
the C struct's, host memory, an address no allocation holds) passes -1: the field's accesses
run unchecked for that launch, and check_report() says why (never a false failure).
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..c_launch import struct_bytes

# cudaMemoryType
_DEVICE, _MANAGED = 2, 3
_driver = None
_driver_lock = threading.Lock()


def _cu_mem_get_address_range():
    global _driver
    with _driver_lock:
        if _driver is None:
            lib = ctypes.CDLL("libcuda.so.1")
            fn = lib.cuMemGetAddressRange_v2
            fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t),
                           ctypes.c_uint64]
            fn.restype = ctypes.c_int
            _driver = fn
        return _driver


def allocation(address: int):
    """(base, size in bytes) of the CUDA allocation holding `address`, or why not (a str)."""
    from .program import _cupy

    cp = _cupy()
    try:
        attrs = cp.cuda.runtime.pointerGetAttributes(address)
    except Exception as err:     # noqa: BLE001 -- an address CUDA does not know
        return f"CUDA does not know the address {address:#x} ({err})"
    kind = getattr(attrs, "type", -1)
    if kind not in (_DEVICE, _MANAGED):
        return f"the address {address:#x} is not device memory (host or unregistered memory)"
    try:
        get_range = _cu_mem_get_address_range()
    except (OSError, AttributeError) as err:
        return f"the CUDA driver's cuMemGetAddressRange is not available ({err})"
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    status = get_range(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(address))
    if status != 0:
        return f"no CUDA allocation holds the address {address:#x} (error {status})"
    return int(base.value), int(size.value)


def field_extent(value, field, lookup=allocation):
    """(bytes the field may reach from its address, or -1; why -1) for one launch argument."""
    raw = struct_bytes(value)
    if raw is None:
        return -1, (f"argument '{field.name.partition('.')[0]}' is a "
                    f"{type(value).__name__}, not a NumPy structured scalar")
    if len(raw) != field.struct_size:
        return -1, (f"the structured scalar has {len(raw)} bytes, the C struct "
                    f"{field.struct_size}: its layout is not known")
    address = int.from_bytes(raw[field.offset:field.offset + 8], "little")
    if address == 0:
        return 0, ""                         # a null pointer: every access fails
    found = lookup(address)
    if isinstance(found, str):
        return -1, found
    base, size = found
    return max(0, base + size - address), ""


def field_extents(args, fields, lookup=None):
    """The hidden extents (np.int64) of a launch's struct fields, and [(field, why)] for those
    launched unchecked."""
    sizes, unresolved = [], []
    for field in fields:
        nbytes, why = field_extent(args[field.param], field, lookup or allocation)
        sizes.append(np.int64(nbytes))
        if nbytes < 0:
            unresolved.append((field, why))
    return sizes, unresolved


__all__ = ["field_extents", "field_extent", "allocation", "struct_bytes"]
