"""What the kernel cache holds for a checked numba kernel: its cubin and what a launch needs.

`pack_kernel` turns a compiled numba `_Kernel` into a payload: JSON metadata (entry point,
argument types as plain data, compute capability, lineinfo, max_registers, lto, carveout, the
compile's warnings) and the blobs `cubin` and `ptx`. `unpack_kernel` reads one back (a
ValueError for anything that is not one), `rebuild_kernel` makes numba's `_Kernel` of it again
without compiling anything. Nothing in a payload is executed as host code.

Argument types are stored as plain data (`type_to_data` / `type_from_data`): scalars, arrays of
scalars and tuples of those; anything else is `Uncacheable`.
"""
from __future__ import annotations

try:
    from numba.cuda import types
except ImportError:          # pragma: no cover - numba-cuda without its numba.cuda.types
    from numba.core import types

from ...cache.kernels import pack_payload, unpack_payload

#: Version of the stored payload's layout; part of every key (keys.codegen_digest).
PAYLOAD_VERSION = 1


class Uncacheable(Exception):
    """The kernel (for these argument types) cannot be keyed or stored; it can still run."""


# -- argument types as plain data ------------------------------------------------------------------

_SCALAR_NAMES = ("boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "float32", "float64", "complex64", "complex128")
_SCALARS = {str(getattr(types, n)): getattr(types, n) for n in _SCALAR_NAMES}
_LAYOUTS = ("C", "F", "A")
_MAX_NDIM = 32


def type_to_data(ty):
    """A numba type as JSON-able plain data; Uncacheable for types outside the supported set
    (scalars, arrays of scalars, tuples of those)."""
    if isinstance(ty, (types.Boolean, types.Integer, types.Float, types.Complex)):
        name = str(ty)
        if _SCALARS.get(name) is ty:
            return name
    elif type(ty) is types.Array:
        dtype = type_to_data(ty.dtype)
        if not isinstance(dtype, str):
            raise Uncacheable(f"array of {ty.dtype}")
        return ["array", dtype, int(ty.ndim), ty.layout, not ty.mutable, bool(ty.aligned)]
    elif type(ty) is types.UniTuple:
        return ["unituple", type_to_data(ty.dtype), int(ty.count)]
    elif type(ty) is types.Tuple:
        return ["tuple", [type_to_data(t) for t in ty.types]]
    raise Uncacheable(f"argument type {ty} ({type(ty).__name__}) is not stored as data")


def type_from_data(data, _depth: int = 0):
    """The numba type `type_to_data` described; ValueError for anything else."""
    if _depth > 16:
        raise ValueError("argument type nested too deeply")
    if isinstance(data, str):
        try:
            return _SCALARS[data]
        except KeyError:
            raise ValueError(f"unknown scalar type {data!r}") from None
    if not isinstance(data, (list, tuple)) or not data:
        raise ValueError(f"malformed argument type {data!r}")
    tag = data[0]
    if tag == "array" and len(data) == 6:
        _, dtype, ndim, layout, readonly, aligned = data
        if not isinstance(dtype, str) or type(ndim) is not int or not 0 <= ndim <= _MAX_NDIM \
                or layout not in _LAYOUTS or type(readonly) is not bool \
                or type(aligned) is not bool:
            raise ValueError(f"malformed array type {data!r}")
        return types.Array(type_from_data(dtype, _depth + 1), ndim, layout, readonly=readonly,
                           aligned=aligned)
    if tag == "unituple" and len(data) == 3 and type(data[2]) is int and 0 <= data[2] <= 1 << 16:
        return types.UniTuple(type_from_data(data[1], _depth + 1), data[2])
    if tag == "tuple" and len(data) == 2 and isinstance(data[1], (list, tuple)):
        return types.Tuple([type_from_data(t, _depth + 1) for t in data[1]])
    raise ValueError(f"malformed argument type {data!r}")


def as_key(data):
    """Plain data with lists as tuples (key material)."""
    if isinstance(data, list):
        return tuple(as_key(x) for x in data)
    return data


# -- payloads -----------------------------------------------------------------------------------

def cc_triple(cc) -> tuple:
    """numba's key of a cubin in its code library: (major, minor, 'a' from sm_90 on)."""
    cc = (int(cc[0]), int(cc[1]))
    return (cc[0], cc[1], "a" if cc >= (9, 0) else "")


def storable(kernel) -> str | None:
    """Why a compiled numba `_Kernel` cannot be launched from its cubin alone, or None."""
    lib = kernel._codelibrary
    if getattr(kernel, "debug", False):
        return "debug"
    if getattr(kernel, "cooperative", False) or getattr(lib, "needs_cudadevrt", False):
        return "cooperative launch (grid synchronisation)"
    if getattr(kernel, "launch_config_sensitive", False):
        return "launch-configuration-sensitive compilation"
    if getattr(kernel, "extensions", None):
        return "extensions"
    if getattr(lib, "_setup_functions", None) or getattr(lib, "_teardown_functions", None):
        return "module setup/teardown callbacks"
    tgt = getattr(kernel, "target_context", None)
    if tgt is not None and getattr(tgt, "enable_nrt", False):
        return "NRT"
    return None


def pack_kernel(kernel, argtypes, cc, said=()) -> bytes:
    """The cubin of a compiled numba `_Kernel` for `cc`, and what a launch needs, as a payload.
    Uncacheable if the kernel refers to objects (global device arrays) a cubin cannot carry."""
    lib = kernel._codelibrary
    if getattr(lib, "referenced_objects", None):
        raise Uncacheable("the kernel refers to global device arrays")
    triple = cc_triple(cc)
    cubin = lib.get_cubin(cc=triple)
    cubin = getattr(cubin, "code", cubin)
    if not isinstance(cubin, (bytes, bytearray)):
        raise Uncacheable(f"numba's cubin is {type(cubin).__name__}, not bytes")
    ptx = lib._ptx_cache.get(triple) if isinstance(getattr(lib, "_ptx_cache", None), dict) \
        else None
    carveout = getattr(kernel, "shared_memory_carveout", None)
    meta = {
        "payload": PAYLOAD_VERSION,
        "entry": kernel.entry_name,
        "library": str(lib.name),
        "arg_types": [type_to_data(t) for t in argtypes],
        "cc": list(triple),
        "lineinfo": bool(getattr(kernel, "lineinfo", False)),
        "max_registers": getattr(lib, "_max_registers", None),
        "lto": bool(getattr(lib, "_lto", False)),
        "carveout": carveout if isinstance(carveout, int) else None,
        "warnings": [list(w) for w in said],
    }
    blobs = {"cubin": bytes(cubin)}
    if ptx:
        blobs["ptx"] = "\n".join(ptx).encode()
    return pack_payload(meta, blobs)


def unpack_kernel(payload: bytes, argtypes) -> tuple[dict, bytes, str | None]:
    """(meta, cubin, ptx) of a payload made by pack_kernel for `argtypes`; ValueError if it is
    not one."""
    meta, blobs = unpack_payload(payload)
    if meta.get("payload") != PAYLOAD_VERSION:
        raise ValueError(f"payload version {meta.get('payload')!r}")
    stored = tuple(type_from_data(d) for d in meta.get("arg_types", ()))
    if stored != tuple(argtypes):
        raise ValueError(f"payload is for argument types {stored}, not {tuple(argtypes)}")
    if not isinstance(meta.get("entry"), str) or not meta["entry"]:
        raise ValueError("payload without an entry point")
    cc = meta.get("cc")
    if not (isinstance(cc, list) and len(cc) == 3 and type(cc[0]) is int
            and type(cc[1]) is int and isinstance(cc[2], str)):
        raise ValueError(f"payload compute capability {cc!r}")
    cubin = blobs.get("cubin")
    if not cubin:
        raise ValueError("payload without a cubin")
    ptx = blobs.get("ptx")
    return meta, cubin, ptx.decode() if ptx else None


def rebuild_kernel(meta: dict, cubin: bytes, ptx: str | None, argtypes, py_func=None):
    """numba's `_Kernel` for a stored cubin, as numba's own cache rebuilds one (nothing
    compiled; the module is loaded into a context when first bound there)."""
    from cuda.core import ObjectCode
    from numba.cuda.codegen import CUDACodeLibrary
    from numba.cuda.dispatcher import _Kernel

    cc = tuple(meta["cc"])
    lib = CUDACodeLibrary._rebuild(
        codegen=None, name=meta.get("library") or meta["entry"], entry_name=meta["entry"],
        llvm_strs=None, ptx_cache={cc: [ptx]} if ptx else {},
        cubin_cache={cc: ObjectCode.from_cubin(cubin, name=meta["entry"])},
        linkerinfo_cache={}, max_registers=meta.get("max_registers"), nvvm_options={},
        needs_cudadevrt=False, nrt=False, use_cooperative=False, lto=bool(meta.get("lto")))
    kernel = _Kernel._rebuild(
        cooperative=False, name=meta["entry"], signature=types.void(*argtypes),
        codelibrary=lib, debug=False, lineinfo=bool(meta.get("lineinfo")), call_helper=None,
        extensions=[], shared_memory_carveout=meta.get("carveout"),
        launch_config_sensitive=False)
    kernel.py_func = py_func
    return kernel


__all__ = ["PAYLOAD_VERSION", "Uncacheable", "type_to_data", "type_from_data", "as_key",
           "cc_triple", "storable", "pack_kernel", "unpack_kernel", "rebuild_kernel"]
