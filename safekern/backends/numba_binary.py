"""Warm starts of checked numba kernels: cubins in the kernel cache, launched without numba.

A `CheckedKernel` on a real GPU gets a `BinaryLauncher`. The first launch with a given set of
argument types (per CUDA context) looks the kernel up in the kernel cache by a key of everything
that determines its binary (`key_fields`):

- hit: the cubin is loaded into the current context (numba's `_Kernel` and code library are
  rebuilt from plain data: entry point name, argument types, cc), and launched at once. Numba's
  typing, lowering, NVVM and linker do not run; no numba dispatcher is even created;
- miss: numba compiles the rewritten kernel as it always did (the kernel's dispatcher,
  specialised for those types), and the linked cubin, its PTX and what a launch needs are stored.

Every later launch with the same argument types in that context takes a short path: the types
of the arguments (numba's typeof, with shortcuts for device arrays and Python scalars) select
the loaded kernel in a dict, the arguments are marshalled exactly as numba's `_Kernel.launch`
does (host arrays are copied to the device and back), and `cuda.core.launch` runs it with a
launch configuration made once per grid/block/shared-memory size. No numba dispatcher is
involved.

What stays on numba's own path (`launch` returns False and numba_cuda launches as before):
kernels built with `debug=True` or `extensions`, kernels that need NRT, cooperative launches or
launch-configuration-sensitive compilation, linked code with setup callbacks, signature-eager
kernels launched with types that fit none (or more than one) of their signatures, argument values
numba cannot type, and anything that goes wrong on the way (a warning says what). Kernels whose
compilation captures something a cubin cannot be keyed on (a global of an unknown type, a global
device array) still take the short path, compiled in each process and never stored.

Argument types are stored as plain data (`type_to_data` / `type_from_data`: booleans, integers,
floats, complex numbers, arrays of those, tuples); nothing in a payload is executed as host code.
"""
from __future__ import annotations

import ast
import builtins
import ctypes
import enum
import hashlib
import logging
import os
import sys
import threading
import types as pytypes
from collections import Counter

import numpy as np

from .. import config, runtime

try:
    from numba.cuda import types
except ImportError:          # pragma: no cover - numba-cuda without its numba.cuda.types
    from numba.core import types

log = logging.getLogger("safekern.numba")

#: Version of the payload layout below; part of every key.
PAYLOAD_VERSION = 1

#: What happened, process-wide (tests and benchmarks read it): hit, miss, compile, load, store,
#: reject, numba_path, uncacheable. Only set-up events are counted, never launches.
STATS: Counter = Counter()

NUMBA = "numba"          # a table value: launch these argument types through numba's dispatcher


class Uncacheable(Exception):
    """The kernel (for these argument types) cannot be keyed or stored; it can still run."""


class NotLaunchable(Exception):
    """This kernel needs numba's own launch path (debug, NRT, cooperative, extensions, ...)."""


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


def _as_key(data):
    """Plain data with lists as tuples (key material)."""
    if isinstance(data, list):
        return tuple(_as_key(x) for x in data)
    return data


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


# -- key fields ---------------------------------------------------------------------------------

_DATA_TYPES = (type(None), bool, int, float, str, bytes)
_MAX_DEPTH = 8


def _code_digest(code) -> str:
    """A digest of a code object's behaviour (bytecode, names, constants; nested code too)."""
    h = hashlib.sha256()

    def feed(c):
        h.update(c.co_code)
        h.update(repr((c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars,
                       c.co_argcount)).encode())
        for const in c.co_consts:
            if isinstance(const, pytypes.CodeType):
                feed(const)
            else:
                h.update(repr((type(const).__name__, const)).encode())

    feed(code)
    return h.hexdigest()


def _code_names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _code_names(const)
    return names


def describe_value(value, depth: int = 0):
    """A global (or closure variable, or option) as key material: data by value, functions by
    their code, modules and classes by name. Uncacheable for what cannot be described."""
    if depth > _MAX_DEPTH:
        raise Uncacheable("globals nested too deeply")
    from . import numba_cuda

    if isinstance(value, _DATA_TYPES):
        return value
    if isinstance(value, complex):
        return ("complex", value.real, value.imag)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(describe_value(v, depth + 1) for v in value)
    if isinstance(value, (set, frozenset)):
        items = [describe_value(v, depth + 1) for v in value]
        if not all(isinstance(i, str) for i in items):
            raise Uncacheable("a set of non-strings")
        return ("set",) + tuple(sorted(items))
    if isinstance(value, pytypes.ModuleType):
        return ("module", value.__name__)
    if hasattr(value, "__cuda_array_interface__"):
        raise Uncacheable("a device array (its address is compiled into the kernel)")
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return ("ndarray", value.dtype.str, repr(value.dtype.descr), tuple(value.shape),
                hashlib.sha256(data.view(np.uint8).tobytes() if data.size else b"").hexdigest())
    if isinstance(value, np.generic):
        return ("npscalar", value.dtype.str, value.tobytes().hex())
    if isinstance(value, np.dtype):
        return ("dtype", value.str, repr(value.descr))
    if isinstance(value, types.Type):
        return ("numba_type", type(value).__name__, str(value))
    if isinstance(value, enum.Enum):
        cls = type(value)
        return ("enum", cls.__module__, cls.__qualname__, value.name,
                describe_value(value.value, depth + 1))
    if isinstance(value, numba_cuda._CheckedFunction):
        return ("checked", function_fields(value, depth + 1))
    if isinstance(value, type):
        return ("class", value.__module__, value.__qualname__)
    if isinstance(value, np.ufunc):
        return ("ufunc", value.__name__)
    if isinstance(value, (pytypes.BuiltinFunctionType, pytypes.BuiltinMethodType)):
        return ("builtin", getattr(value, "__module__", None), value.__qualname__)
    py_func = getattr(value, "py_func", None)
    if isinstance(py_func, pytypes.FunctionType):       # a numba dispatcher (device function)
        opts = getattr(value, "targetoptions", None)
        opts = {k: v for k, v in (opts or {}).items() if k != "extensions"}
        return ("numba_function", type(value).__name__, _function_key(py_func, depth + 1),
                describe_value(dict_items(opts), depth + 1))
    if isinstance(value, pytypes.FunctionType):
        return ("function", _function_key(value, depth + 1))
    raise Uncacheable(f"a global of type {type(value).__module__}.{type(value).__qualname__}")


def dict_items(d: dict) -> tuple:
    return tuple(sorted((str(k), v) for k, v in d.items()))


def _function_key(fn, depth):
    """A Python function by module, name, code and the globals its code names."""
    code = fn.__code__
    scope = {}
    if fn.__closure__:
        for name, cell in zip(code.co_freevars, fn.__closure__):
            try:
                scope[name] = cell.cell_contents
            except ValueError:
                pass
    glob = fn.__globals__
    found = {}
    for name in sorted(_code_names(code) | set(code.co_freevars)):
        if name in scope:
            found[name] = describe_value(scope[name], depth + 1)
        elif name in glob:
            value = glob[name]
            if value is fn:
                found[name] = ("self",)
            else:
                found[name] = describe_value(value, depth + 1)
    return (fn.__module__, fn.__qualname__, _code_digest(code), tuple(sorted(found.items())))


def _names_used(tree) -> tuple[set, set, list]:
    """(names loaded, names bound locally, dotted attribute chains on loaded names)."""
    loads, bound, chains = set(), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            parts, inner = [node.attr], node.value
            while isinstance(inner, ast.Attribute):
                parts.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name):
                chains.append((inner.id, tuple(reversed(parts))))
    return loads, bound, chains


_MISSING = object()


def _lookup(name, parsed):
    if name in parsed.closure:
        return parsed.closure[name]
    if name in parsed.globals:
        return parsed.globals[name]
    return _MISSING


def globals_fields(rewritten, depth: int = 0) -> dict:
    """Every global and closure variable the rewritten function reads, as key material."""
    from ..frontend import names

    parsed = rewritten.parsed
    loads, bound, chains = _names_used(rewritten.tree)
    out = {}
    for name in sorted(loads - bound):
        if name.startswith(names.PREFIX):
            continue                  # safekern's helpers (its version is in the key)
        value = _lookup(name, parsed)
        if value is _MISSING:
            out[name] = ("builtin",) if hasattr(builtins, name) else ("missing",)
        else:
            out[name] = describe_value(value, depth + 1)
    # Module attributes that are data (`consts.N`): numba freezes their values too.
    for root, attrs in chains:
        if root in bound or root.startswith(names.PREFIX):
            continue
        value = _lookup(root, parsed)
        path = root
        for attr in attrs:
            if not isinstance(value, pytypes.ModuleType):
                break
            value = getattr(value, attr, _MISSING)
            path += "." + attr
            if value is _MISSING:
                break
            if isinstance(value, _DATA_TYPES + (complex, tuple, np.ndarray, np.generic)):
                out[path] = describe_value(value, depth + 1)
                break
    return out


def function_fields(fn, depth: int = 0) -> dict:
    """A checked function (kernel or device function) as key material: its rewritten source,
    where it is, the globals it reads, its options and the checked device functions it calls."""
    if depth > _MAX_DEPTH:
        raise Uncacheable("checked device functions nested too deeply (recursion?)")
    rewritten = fn._final_rewrite()
    parsed = rewritten.parsed
    return {
        "source": rewritten.source,
        "filename": parsed.filename,
        "line": parsed.tree.lineno,
        "globals": globals_fields(rewritten, depth),
        "options": options_fields(fn._options),
        "device_functions": {name: function_fields(dev, depth + 1)
                             for name, dev in sorted(rewritten.device_calls.items())},
    }


def _link_item(item):
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        except OSError as err:
            raise Uncacheable(f"cannot read linked file {path!r}: {err}") from None
        return ("file", os.path.basename(path), digest)
    data = getattr(item, "data", None)
    if getattr(item, "setup_callback", None) or getattr(item, "teardown_callback", None) \
            or getattr(item, "nrt", False):
        raise NotLaunchable("linked code with setup/teardown callbacks or NRT")
    if isinstance(data, str):
        data = data.encode()
    if not isinstance(data, (bytes, bytearray)):
        raise Uncacheable(f"linked code of type {type(item).__name__}")
    return ("code", type(item).__name__, getattr(item, "kind", None), getattr(item, "name", None),
            hashlib.sha256(bytes(data)).hexdigest())


def options_fields(options: dict) -> dict:
    out = {}
    for name, value in sorted(options.items()):
        if name == "cache":
            continue                  # numba's own cache=True does not change the binary
        if name == "link":
            out[name] = tuple(_link_item(x) for x in (value or ()))
        else:
            out[name] = describe_value(value)
    return out


def launch_obstacle(options: dict) -> str | None:
    """Why a kernel with these options must stay on numba's launch path, or None."""
    from numba.cuda.core import config as numba_config

    debug = options.get("debug")
    if debug or (debug is None and getattr(numba_config, "CUDA_DEBUGINFO_DEFAULT", 0)):
        return "debug=True (numba reports device exceptions after the launch)"
    if options.get("extensions"):
        return "extensions= (numba's argument hooks)"
    if getattr(numba_config, "CUDA_ENABLE_NRT", False):
        return "NRT is enabled (NUMBA_CUDA_ENABLE_NRT)"
    for item in options.get("link") or ():
        if getattr(item, "setup_callback", None) or getattr(item, "teardown_callback", None) \
                or getattr(item, "nrt", False):
            return "linked code with setup/teardown callbacks or NRT"
    return None


_toolchain = None
_toolchain_lock = threading.Lock()

#: Wheels whose versions identify NVVM, libdevice and the linker (nvJitLink); not loading the
#: libraries themselves keeps a warm start fast. A system CUDA is named by CUDA_HOME / CUDA_PATH
#: (environment) and where /usr/local/cuda points.
_TOOLKIT_DISTRIBUTIONS = ("nvidia-nvvm", "nvidia-nvjitlink", "cuda-toolkit",
                          "nvidia-cuda-nvcc-cu12", "nvidia-nvjitlink-cu12")


def toolchain() -> dict:
    """Versions of everything that compiles a numba kernel (once per process)."""
    global _toolchain
    with _toolchain_lock:
        if _toolchain is None:
            import importlib.metadata as md

            import llvmlite
            import numba

            found = {}
            for dist in _TOOLKIT_DISTRIBUTIONS:
                try:
                    found[dist] = md.version(dist)
                except Exception:         # noqa: BLE001 - not installed (or broken metadata)
                    found[dist] = None
            try:
                import numba_cuda
                numba_cuda_version = getattr(numba_cuda, "__version__", None)
            except ImportError:
                numba_cuda_version = None
            try:
                import cuda.bindings
                import cuda.core
                core = (cuda.core.__version__, cuda.bindings.__version__)
            except (ImportError, AttributeError):
                core = (None, None)
            cuda_link = "/usr/local/cuda"
            _toolchain = {
                "python": f"{sys.implementation.name} {sys.version.split()[0]}",
                "numba": numba.__version__, "numba_cuda": numba_cuda_version,
                "llvmlite": llvmlite.__version__, "cuda_core": core[0],
                "cuda_bindings": core[1], "toolkit": found,
                "usr_local_cuda": os.path.realpath(cuda_link) if os.path.exists(cuda_link)
                else None,
                "conda_prefix": os.environ.get("CONDA_PREFIX"),
            }
        return _toolchain


_codegen = None


def codegen_digest() -> str:
    """safekern's own part of code generation: the typed check helpers, and this payload
    layout. (The rewrite's output is the key's source; safekern's version is added too.)"""
    global _codegen
    if _codegen is None:
        h = hashlib.sha256(f"payload {PAYLOAD_VERSION}\n".encode())
        helpers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_helpers.py")
        try:
            with open(helpers, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"numba_helpers.py unreadable")
        _codegen = h.hexdigest()
    return _codegen


def numba_config_fields() -> dict:
    """numba settings that change code generation and can be set from Python as well as from
    NUMBA_* variables (those are in the key's environment too)."""
    from numba.cuda.core import config as numba_config

    names = ("OPT", "CUDA_DEBUGINFO_DEFAULT", "CUDA_ENABLE_NRT", "FASTMATH",
             "CUDA_USE_NVIDIA_BINDING", "CUDA_FORCE_LTO")
    return {n: repr(getattr(numba_config, n, None)) for n in names}


_devices: dict = {}


def device_fields(context) -> dict:
    """Name, compute capability and CUDA driver version of a context's device."""
    device = context.device
    fields = _devices.get(device.id)
    if fields is None:
        from numba.cuda.cudadrv.driver import driver

        cc = tuple(int(x) for x in device.compute_capability)
        fields = {"device_name": str(device.name), "compute_capability": f"{cc[0]}.{cc[1]}",
                  "driver": ".".join(map(str, driver.get_version()))}
        _devices[device.id] = fields
    return fields


def key_fields(kernel, argtypes, device: dict) -> dict:
    """Every input that determines the cubin of `kernel` for `argtypes` on `device`."""
    return {
        "kind": "numba-kernel",
        "kernel": kernel.__qualname__,
        "function": function_fields(kernel),
        "arg_types": tuple(_as_key(type_to_data(t)) for t in argtypes),
        "checks": True,
        "codegen": codegen_digest(),
        "toolchain": toolchain(),
        "numba_config": numba_config_fields(),
        "env": tuple(config.environ_snapshot().items()),
        **device,
    }


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


def pack_kernel(kernel, argtypes, cc) -> bytes:
    """The cubin of a compiled numba `_Kernel` for `cc`, and what a launch needs, as a payload.
    Uncacheable if the kernel refers to objects (global device arrays) a cubin cannot carry."""
    from ..cache.kernels import pack_payload

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
    }
    blobs = {"cubin": bytes(cubin)}
    if ptx:
        blobs["ptx"] = "\n".join(ptx).encode()
    return pack_payload(meta, blobs)


def unpack_kernel(payload: bytes, argtypes) -> tuple[dict, bytes, str | None]:
    """(meta, cubin, ptx) of a payload made by pack_kernel for `argtypes`; ValueError if it is
    not one."""
    from ..cache.kernels import unpack_payload

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


# -- launching ------------------------------------------------------------------------------------

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


class _Numba:
    """numba's internals the launch path uses, imported on first use (not under the simulator)."""

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
        try:
            from cuda.bindings import driver as cudrv

            cls.ctx_get_current = cudrv.cuCtxGetCurrent
        except ImportError:      # pragma: no cover
            cls.ctx_get_current = None
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
                d = _Numba.wrap_arg(val).to_device(retr, stream)
            itemsize = d.dtype.itemsize
            shape = d.shape
            layout = d._layout
            extend((0, 0, d.size, itemsize, d.ptr))
            extend(shape)
            extend(layout.strides_in_bytes or _Numba.strides_from_shape(
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


_params: dict = {}
_PARAMS_MAX = 512


def launch_params(launch_config):
    """(cuda.core stream, LaunchConfig) for `kernel[griddim, blockdim(, stream(, sharedmem))]`,
    made once per configuration as numba's `configure` does; None for what numba would reject
    (numba's path then raises its own error)."""
    try:
        params = _params.get(launch_config)
    except TypeError:                          # a list as a dimension: unhashable, not memoised
        return _make_params(launch_config)
    if params is None:
        params = _make_params(launch_config)
        if params is not None:
            if len(_params) >= _PARAMS_MAX:
                _params.clear()
            _params[launch_config] = params
    return params


def _make_params(launch_config):
    if not isinstance(launch_config, tuple) or len(launch_config) not in (2, 3, 4):
        return None
    griddim, blockdim, stream, sharedmem = (launch_config + (0, 0))[:4]
    try:
        griddim, blockdim = _Numba.normalize(griddim, blockdim)
    except (TypeError, ValueError):
        return None
    core_stream = _Numba.to_core_stream(stream)
    if _Numba.core_ge_1_0:
        cfg = _Numba.LaunchConfig(grid=griddim, block=blockdim, shmem_size=sharedmem,
                                  is_cooperative=False)
    else:                                       # pragma: no cover - older cuda.core
        cfg = _Numba.LaunchConfig(grid=griddim, block=blockdim, shmem_size=sharedmem,
                                  cooperative_launch=False)
    _occupancy_warning(griddim)
    return core_stream, cfg


def _occupancy_warning(griddim) -> None:
    """numba's warning for small grids (its _LaunchConfiguration gives it once per config)."""
    from numba.cuda.core import config as numba_config

    if getattr(numba_config, "CUDA_LOW_OCCUPANCY_WARNINGS", 0) and \
            not getattr(numba_config, "DISABLE_PERFORMANCE_WARNINGS", 0):
        size = griddim[0] * griddim[1] * griddim[2]
        if size < 128:
            import warnings

            from numba.cuda.core.errors import NumbaPerformanceWarning

            warnings.warn(NumbaPerformanceWarning(
                f"Grid size {size} will likely result in GPU under-utilization due to low "
                "occupancy."), stacklevel=4)


_by_handle: dict = {}


def fast_source():
    """The current context's failure source: one driver call and a dict lookup, or
    numba_cuda.current_source() (which makes a context current if none is)."""
    from . import numba_cuda

    get = _Numba.ctx_get_current
    if get is not None:
        err, ctx = get()
        if not err:
            source = _by_handle.get(int(ctx))
            if source is not None and source.context.device.primary_context is source.context:
                return source
    source = numba_cuda.current_source()
    _by_handle[int(source.context.handle)] = source
    return source


class Spec:
    """A kernel compiled (or loaded) for one tuple of argument types, bound to one context."""

    __slots__ = ("kernel", "argtypes", "plan", "cu_kernel", "cufunc", "fb", "from_cache",
                 "tpb")

    def __init__(self, kernel, argtypes, source, from_cache: bool):
        self.kernel = kernel
        self.argtypes = tuple(argtypes)
        self.from_cache = from_cache
        self.plan = argument_plan(self.argtypes[:-1])     # the last: the failure buffer's address
        kernel.bind()                                      # loads the module into this context
        self.cufunc = kernel._codelibrary.get_cufunc()
        self.cu_kernel = self.cufunc.kernel
        self.fb = ctypes.c_int64(source.argument)
        self.tpb: dict = {}

    def run(self, args, params, source) -> None:
        stream, cfg = params
        retr = []
        kernelargs = marshal(self.plan, args, stream, retr, self.kernel)
        kernelargs.append(self.fb)
        _Numba.launch(stream, cfg, self.cu_kernel, *kernelargs)
        for wb in retr:
            wb()
        runtime.after_launch(source)

    def threads_per_block(self, context, sharedmem) -> int:
        """numba's ForAll choice of block size for this kernel (asked of the driver once)."""
        tpb = self.tpb.get(sharedmem)
        if tpb is None:
            _, tpb = context.get_max_potential_block_size(
                func=self.cufunc, b2d_func=0, memsize=sharedmem, blocksizelimit=1024)
            self.tpb[sharedmem] = tpb
        return tpb


class _Table:
    """One context's kernels: by the ids of the launch's argument types (the types themselves are
    kept alive here, so an id cannot be reused), and by the argument types compiled for."""

    __slots__ = ("by_key", "keep", "by_types")

    def __init__(self):
        self.by_key: dict = {}
        self.keep: list = []
        self.by_types: dict = {}


class BinaryLauncher:
    """The short launch path of one CheckedKernel (see the module doc)."""

    def __init__(self, kernel):
        _Numba.load()
        self.kernel = kernel
        self._tables: dict = {}
        self._obstacle = launch_obstacle(kernel._options)
        self._sig_types = None
        if kernel._sigs is not None:
            from numba.cuda.core.sigutils import normalize_signature

            sigs = []
            for sig in kernel._sigs:
                args, _ = normalize_signature(sig)
                sigs.append(tuple(args) + (types.int64,))
            self._sig_types = sigs

    # -- the launch paths -------------------------------------------------------------------

    def launch(self, launch_config, args) -> bool:
        """Launch `kernel[launch_config](*args)` on the short path; False: not done, launch it
        through numba."""
        source = fast_source()
        table = self._tables.get(source)
        if table is None:
            table = self._tables.setdefault(source, _Table())
        try:
            argtypes = argument_types(args)
        except Exception:             # noqa: BLE001 - numba cannot type it: numba says so
            return False
        key = tuple(map(id, argtypes))
        spec = table.by_key.get(key)
        if spec is None:
            spec = self._resolve(table, key, argtypes, source)
        if spec is NUMBA:
            return False
        params = launch_params(launch_config)
        if params is None:
            return False
        spec.run(args, params, source)
        return True

    def forall(self, ntasks, tpb, stream, sharedmem, args) -> bool:
        """`kernel.forall(ntasks, tpb, stream, sharedmem)(*args)` as numba's ForAll does it."""
        if not isinstance(ntasks, int) or ntasks < 0:
            return False
        source = fast_source()
        table = self._tables.get(source)
        if table is None:
            table = self._tables.setdefault(source, _Table())
        try:
            argtypes = argument_types(args)
        except Exception:             # noqa: BLE001
            return False
        key = tuple(map(id, argtypes))
        spec = table.by_key.get(key)
        if spec is None:
            spec = self._resolve(table, key, argtypes, source)
        if spec is NUMBA:
            return False
        if ntasks == 0:
            return True
        blockdim = tpb or spec.threads_per_block(source.context, sharedmem)
        griddim = (ntasks + blockdim - 1) // blockdim
        params = launch_params((griddim, blockdim, stream, sharedmem))
        if params is None:
            return False
        spec.run(args, params, source)
        return True

    def prepare_signatures(self) -> bool:
        """Signature-eager kernels at decoration: every signature's kernel from the cache (or,
        if one is missing, numba's eager compile and a store). False: build with numba."""
        if self._sig_types is None or self._obstacle:
            return False
        from . import numba_cuda

        source = numba_cuda.current_source()
        table = self._tables.setdefault(source, _Table())
        try:
            for argtypes in self._sig_types:
                if self._specialise(table, argtypes, source, lookup_only=True) is None:
                    self.kernel._build()         # numba compiles every signature, as numba does
                    break
            for argtypes in self._sig_types:
                if self._specialise(table, argtypes, source) is NUMBA:
                    return False
        except _Failed:
            return False
        return True

    # -- finding the kernel for a tuple of argument types -----------------------------------------

    def _resolve(self, table, key, argtypes, source):
        spec = NUMBA
        if self._obstacle:
            STATS["numba_path"] += 1
        else:
            full = tuple(argtypes) + (types.int64,)
            if self._sig_types is not None:
                full = _fit_signature(self._sig_types, full)
            if full is None:
                STATS["numba_path"] += 1
            else:
                try:
                    spec = self._specialise(table, full, source)
                except _Failed:
                    spec = NUMBA
        table.keep.append(argtypes)
        table.by_key[key] = spec
        return spec

    def _specialise(self, table, argtypes, source, lookup_only=False):
        """The Spec for `argtypes` (hidden argument included) in `source`'s context: from the
        cache, or compiled by numba (and stored). NUMBA: launch through numba (a compile error,
        which numba then reports, or a kernel the short path cannot launch). With `lookup_only`,
        None when the cache does not have it."""
        with self.kernel._lock:
            spec = table.by_types.get(argtypes)
            if spec is not None:
                return spec
            spec = self._make_spec(argtypes, source, lookup_only)
            if spec is not None:
                table.by_types[argtypes] = spec
            return spec

    def _make_spec(self, argtypes, source, lookup_only):
        from ..cache.kernels import get_kernel_cache

        kernel = self.kernel
        kc = get_kernel_cache()
        fields = None
        if kc is not None:
            try:
                fields = key_fields(kernel, argtypes, device_fields(source.context))
            except Uncacheable as why:
                STATS["uncacheable"] += 1
                log.debug("numba kernel %r not cached: %s", kernel.__qualname__, why)
            except NotLaunchable as why:
                STATS["numba_path"] += 1
                log.debug("numba kernel %r launched by numba: %s", kernel.__qualname__, why)
                return NUMBA
            except Exception as err:     # noqa: BLE001 - a bug here must not stop the kernel
                _warn(kernel, "computing its cache key", err)
                fields = None
        describe = f"numba kernel {kernel.__qualname__!r}"
        if fields is not None:
            if lookup_only:
                payload = kc.lookup(fields, describe=describe)
                if payload is None:
                    return None
                return self._from_payload(payload, argtypes, source, kc, fields, describe)
            return self._get_or_compile(argtypes, source, kc, fields, describe, retry=True)
        if lookup_only:
            return None
        compiled = self._compile(argtypes)
        if compiled is NUMBA:
            return NUMBA
        return self._spec(compiled, argtypes, source, from_cache=False)

    def _get_or_compile(self, argtypes, source, kc, fields, describe, retry):
        compiled = []
        cc = source.context.device.compute_capability

        def build() -> bytes:
            k = self._compile(argtypes)
            compiled.append(k)
            if k is NUMBA:
                raise _NotStored()
            why = storable(k)
            if why:
                raise _NotStored()
            try:
                return pack_kernel(k, argtypes, cc)
            except Uncacheable as err:
                log.debug("%s not stored: %s", describe, err)
                raise _NotStored() from None

        meta = {"kernel": self.kernel.__qualname__, "backend": "numba-cuda",
                "device": fields.get("device_name"),
                "arg_types": [str(t) for t in argtypes[:-1]]}
        try:
            payload = kc.get_or_compile(fields, build, describe=describe, meta=meta)
        except _NotStored:
            if not compiled or compiled[0] is NUMBA:
                return NUMBA
            return self._spec(compiled[0], argtypes, source, from_cache=False)
        STATS["store" if compiled else "hit"] += 1
        if compiled:
            return self._spec(compiled[0], argtypes, source, from_cache=False)
        return self._from_payload(payload, argtypes, source, kc, fields, describe,
                                  retry=retry)

    def _from_payload(self, payload, argtypes, source, kc, fields, describe, retry=True):
        try:
            meta, cubin, ptx = unpack_kernel(payload, argtypes)
            kernel = rebuild_kernel(meta, cubin, ptx, argtypes, self.kernel.py_func)
            spec = Spec(kernel, argtypes, source, from_cache=True)
        except Exception as err:          # noqa: BLE001 - the driver refused it, or damage
            STATS["reject"] += 1
            kc.reject(fields, f"{type(err).__name__}: {err}", describe=describe)
            if not retry:
                raise _Failed() from err
            return self._get_or_compile(argtypes, source, kc, fields, describe, retry=False)
        STATS["load"] += 1
        return spec

    def _compile(self, argtypes):
        """numba's compile of the rewritten kernel for `argtypes`: its `_Kernel`, or NUMBA when
        it fails (numba's own launch path then raises the error as numba words it)."""
        try:
            dispatcher = self.kernel._build()
            kernel = dispatcher.compile(tuple(argtypes))
        except Exception as err:          # noqa: BLE001 - reported by numba's path
            log.debug("numba kernel %r: compile for %s failed (%s); numba's path reports it",
                      self.kernel.__qualname__, argtypes, err)
            STATS["numba_path"] += 1
            return NUMBA
        STATS["compile"] += 1
        return kernel

    def _spec(self, compiled, argtypes, source, from_cache):
        why = storable(compiled)
        if why:
            STATS["numba_path"] += 1
            log.debug("numba kernel %r launched by numba: %s", self.kernel.__qualname__, why)
            return NUMBA
        try:
            return Spec(compiled, argtypes, source, from_cache=from_cache)
        except Exception as err:          # noqa: BLE001
            _warn(self.kernel, "loading its compiled module", err)
            return NUMBA


class _NotStored(Exception):
    """Raised inside a cache compile: the kernel was compiled but is not to be stored."""


class _Failed(Exception):
    """The short path gave up for these argument types."""


def _fit_signature(signatures, argtypes):
    """The one signature of an eager kernel that numba would pick for `argtypes`, or None
    (no signature or several fit: numba's dispatcher decides, and words the error)."""
    for rule in (_fits_exactly, _fits_converting):
        fitting = [s for s in signatures if len(s) == len(argtypes)
                   and all(rule(p, a) for p, a in zip(s, argtypes))]
        if len(fitting) == 1:
            return fitting[0]
        if len(fitting) > 1:
            exact = [s for s in fitting if s == argtypes]
            return exact[0] if len(exact) == 1 else None
    return None


def _fits_exactly(param, arg) -> bool:
    if param == arg:
        return True
    if isinstance(param, types.Array) and isinstance(arg, types.Array):
        return (param.dtype == arg.dtype and param.ndim == arg.ndim
                and param.layout in ("A", arg.layout)
                and (arg.mutable or not param.mutable)
                and (arg.aligned or not param.aligned))
    return False


def _fits_converting(param, arg) -> bool:
    if _fits_exactly(param, arg):
        return True
    number = (types.Integer, types.Float, types.Boolean)
    if isinstance(param, number) and isinstance(arg, number):
        return True
    return isinstance(param, types.Complex) and isinstance(arg, number + (types.Complex,))


_warned: set = set()


def _warn(kernel, doing, err) -> None:
    from ..cache.trust import warn_once

    log.debug("numba kernel %r: %s failed", kernel.__qualname__, doing, exc_info=True)
    warn_once(("numba-binary", doing, type(err).__name__),
              f"safekern: {doing} of numba kernel {kernel.__qualname__!r} failed "
              f"({type(err).__name__}: {err}); it is launched by numba, uncached")


__all__ = ["BinaryLauncher", "Spec", "STATS", "type_to_data", "type_from_data",
           "argument_types", "key_fields", "function_fields", "globals_fields",
           "describe_value", "options_fields", "toolchain", "device_fields", "pack_kernel",
           "unpack_kernel", "rebuild_kernel", "argument_plan", "marshal", "launch_params",
           "fast_source", "cc_triple", "storable", "launch_obstacle", "Uncacheable",
           "NotLaunchable", "PAYLOAD_VERSION"]
