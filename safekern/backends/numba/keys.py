"""Cache keys of checked numba kernels, and the one value describer for key material.

`key_fields(kernel, argtypes, device)` names every input that determines the cubin numba-cuda
makes for a checked kernel launched with `argtypes` on `device` (launch.py stores and loads the
cubins, payload.py says how):

- the function: its rewritten source (the checks are in it), file and line, every global and
  closure variable it reads (data by value, numpy arrays by content, plain numba device
  functions by their code and the globals that reads -- and their explicit signatures --,
  plain Python functions by their code and what @overload registered for them, modules and
  classes by name), its jit options (linked files by content) and explicit signatures, and
  the same for every checked device function it calls;
- the argument types (as plain data, payload.type_to_data), the hidden failure-buffer address
  included;
- safekern's part of code generation (the typed check helpers' source), the toolchain (Python,
  numba, numba-cuda, llvmlite, cuda-core, cuda-bindings, the NVVM / nvJitLink / toolkit wheels,
  where /usr/local/cuda points), numba settings that change code (OPT, debug info, NRT, ...),
  the NUMBA_* / CUDA_* environment, and the device (name, compute capability, CUDA driver).

`describe_value` is how every value becomes key material, here and for the stored rewrite
(stored.py, `by_name`); a value that knows how to describe itself implements
`__safekern_key__(depth=0)` (checked functions do: kernel.py), so nothing here needs to know
their classes.

Nothing here loads NVVM or the linker, so a warm start does not pay for them. What cannot be
described raises `Uncacheable` (the kernel then runs uncached); what needs numba's own launch
path raises `NotLaunchable`.
"""
from __future__ import annotations

import ast
import builtins
import enum
import hashlib
import os
import sys
import threading
import types as pytypes

import numpy as np

from ... import config
from ...frontend.python.names import PREFIX as RESERVED_PREFIX
from .obstacles import NotLaunchable, launch_obstacle
from .payload import PAYLOAD_VERSION, Uncacheable, as_key, type_to_data, types
from .registrations import overload_registrations, signatures


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


def code_names(code) -> set:
    """The global names a code object reads, its nested functions' included (what a cache key
    describes; what plain.py swaps for numba's own functions)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= code_names(const)
    return names


def describe_value(value, depth: int = 0, *, by_name: bool = False):
    """A global (or closure variable, or option) as key material: data by value, modules and
    classes by name, functions by their code. A value that describes itself is asked: a checked
    function's `__safekern_key__(depth)` gives its rewrite, options and callees. With `by_name`
    (what a rewrite sees of a name: stored.py), code of every kind is described by its kind and
    name only. Uncacheable for what cannot be described."""
    if depth > _MAX_DEPTH:
        raise Uncacheable("globals nested too deeply")
    if isinstance(value, enum.Enum):          # before int, which IntEnum derives from
        cls = type(value)
        return ("enum", cls.__module__, cls.__qualname__, value.name,
                describe_value(value.value, depth + 1, by_name=by_name))
    if isinstance(value, np.generic):          # before float, which np.float64 derives from
        return ("npscalar", value.dtype.str, value.tobytes().hex())
    if isinstance(value, _DATA_TYPES):
        return value
    if isinstance(value, complex):
        return ("complex", value.real, value.imag)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(describe_value(v, depth + 1, by_name=by_name)
                                               for v in value)
    if isinstance(value, (set, frozenset)):
        items = [describe_value(v, depth + 1, by_name=by_name) for v in value]
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
    if isinstance(value, np.dtype):
        return ("dtype", value.str, repr(value.descr))
    if isinstance(value, types.Type):
        return ("numba_type", type(value).__name__, str(value))
    describe_self = getattr(type(value), "__safekern_key__", None)
    if describe_self is not None:
        if by_name:
            return ("checked", type(value).__name__, value.__module__, value.__qualname__)
        return ("checked", describe_self(value, depth + 1))
    if by_name:
        return _by_name(value)
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
        # A dispatcher that compiles nothing new (explicit signatures) types a call by those.
        fixed = None if getattr(value, "_can_compile", True) else tuple(
            sorted(str(s) for s in getattr(value, "nopython_signatures", ())))
        return ("numba_function", type(value).__name__, _function_key(py_func, depth + 1),
                describe_value(dict_items(opts), depth + 1), fixed)
    if isinstance(value, pytypes.FunctionType):
        return ("function", _function_key(value, depth + 1), _overloads_of(value, depth + 1))
    raise Uncacheable(f"a global of type {type(value).__module__}.{type(value).__qualname__}")


def _by_name(value):
    """Code as a rewrite sees it: its kind (numba's dispatcher, a class, a callable) and name."""
    options = getattr(value, "targetoptions", None)
    if isinstance(options, dict):                        # a numba dispatcher
        return ("numba", type(value).__name__, getattr(value, "__module__", None),
                getattr(value, "__qualname__", None), bool(options.get("device")))
    if type(value).__name__ == "FakeCUDAKernel":          # the simulator's
        return ("numba", "FakeCUDAKernel", getattr(value.fn, "__module__", None),
                getattr(value.fn, "__qualname__", None), bool(getattr(value, "_device", False)))
    if isinstance(value, type):
        return ("class", value.__module__, value.__qualname__)
    if isinstance(value, (pytypes.FunctionType, pytypes.BuiltinFunctionType,
                          pytypes.BuiltinMethodType, np.ufunc)):
        return ("callable", type(value).__name__, getattr(value, "__module__", None),
                getattr(value, "__qualname__", getattr(value, "__name__", None)))
    raise Uncacheable(f"a global of type {type(value).__qualname__}")


def _overloads_of(fn, depth) -> tuple:
    """What @overload registered for a plain function (registrations.py) as key material."""
    return tuple(("overload", _function_key(impl, depth + 1), strict,
                  describe_value(dict_items(options), depth + 1))
                 for impl, strict, options in overload_registrations(fn))


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
    for name in sorted(code_names(code) | set(code.co_freevars)):
        if name in scope:
            found[name] = describe_value(scope[name], depth + 1)
        elif name in glob:
            value = glob[name]
            if value is fn:
                found[name] = ("self",)
            else:
                found[name] = describe_value(value, depth + 1)
    # Defaults: numba types an omitted argument as its default value.
    defaults = describe_value((fn.__defaults__ or (), tuple(sorted(
        (fn.__kwdefaults__ or {}).items()))), depth + 1)
    return (fn.__module__, fn.__qualname__, _code_digest(code), tuple(sorted(found.items())),
            defaults)


def names_used(tree) -> tuple[set, set, list]:
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


def globals_fields(rewritten, depth: int = 0) -> dict:
    """Every global and closure variable the rewritten function reads, as key material."""
    parsed = rewritten.parsed
    used = getattr(rewritten, "names_used", None)      # a stored rewrite carries them
    loads, bound, chains = used if used is not None else names_used(rewritten.tree)
    out = {}
    for name in sorted(loads - bound):
        if name.startswith(RESERVED_PREFIX):
            continue                  # safekern's helpers (its version is in the key)
        value = parsed.lookup(name, _MISSING, builtin=False)
        if value is _MISSING:
            out[name] = ("builtin",) if hasattr(builtins, name) else ("missing",)
        elif name == parsed.name and getattr(value, "parsed", None) is parsed:
            out[name] = ("self",)          # a recursive call: the function itself
        else:
            out[name] = describe_value(value, depth + 1)
    # Module attributes that are data (`consts.N`): numba freezes their values too.
    for root, attrs in chains:
        if root in bound or root.startswith(RESERVED_PREFIX):
            continue
        value = parsed.lookup(root, _MISSING, builtin=False)
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


def function_fields(build, depth: int = 0) -> dict:
    """A checked function (its Build, build.py) as key material: its rewritten source, where it
    is, the globals it reads, its options and the checked device functions it calls."""
    if depth > _MAX_DEPTH:
        raise Uncacheable("checked device functions nested too deeply (recursion?)")
    rewritten = build.final_rewrite()
    parsed = rewritten.parsed
    return {
        "source": rewritten.source,
        "filename": parsed.filename,
        "line": parsed.tree.lineno,
        "globals": globals_fields(rewritten, depth),
        "options": options_fields(build.options),
        "signatures": signatures(build.sigs),
        "device_functions": {name: dev.__safekern_key__(depth + 1)
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
                "conda_prefix": config.conda_prefix(),
            }
        return _toolchain


_codegen = None


#: What safekern adds to a kernel's code generation beside the rewrite's source, as paths in
#: the package: the typed check helpers, and which loops a kernel compiles rolled (the marker
#: goes in at the compile, not into the source: frontend/python/cold_loops.py).
CODEGEN_FILES = ("backends/numba/intrinsics.py", "backends/numba/lowering.py",
                 "backends/numba/flag_reads.py", "backends/numba/cold_records.py",
                 "frontend/python/cold_loops.py")


def codegen_digest() -> str:
    """safekern's own part of code generation: the typed check helpers, and this payload
    layout. (The rewrite's output is the key's source; safekern's version is added too.)"""
    global _codegen
    if _codegen is None:
        h = hashlib.sha256(f"payload {PAYLOAD_VERSION}\n".encode())
        package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        for name in CODEGEN_FILES:
            try:
                with open(os.path.join(package, name), "rb") as f:
                    h.update(f.read())
            except OSError:
                h.update(f"{name} unreadable".encode())
        _codegen = h.hexdigest()
    return _codegen


def numba_config_fields() -> dict:
    """numba settings that change code generation and can be set from Python as well as from
    NUMBA_* variables (those are in the key's environment too)."""
    from numba.cuda.core import config as numba_config

    names = ("OPT", "CUDA_DEBUGINFO_DEFAULT", "CUDA_ENABLE_NRT", "FASTMATH",
             "CUDA_USE_NVIDIA_BINDING", "CUDA_FORCE_LTO",
             # what numba's compile warns about, replayed from a stored binary
             "ALWAYS_WARN_UNINIT_VAR")
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
    """Every input that determines the cubin of `kernel` (a checked kernel, or its Build) for
    `argtypes` on `device`."""
    return {
        "kind": "numba-kernel",
        "kernel": kernel.__qualname__,
        "function": kernel.__safekern_key__(),
        "arg_types": tuple(as_key(type_to_data(t)) for t in argtypes),
        "checks": True,
        "codegen": codegen_digest(),
        "toolchain": toolchain(),
        "numba_config": numba_config_fields(),
        "env": tuple(config.environ_snapshot().items()),
        **device,
    }


__all__ = ["Uncacheable", "NotLaunchable", "describe_value", "names_used", "globals_fields",
           "function_fields", "options_fields", "launch_obstacle", "toolchain",
           "codegen_digest", "numba_config_fields", "device_fields", "key_fields"]
