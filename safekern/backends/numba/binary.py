"""Warm starts of checked numba kernels: cubins in the kernel cache, launched without numba.

A `CheckedKernel` on a real GPU gets a `BinaryLauncher`. The first launch with a given set of
argument types (per CUDA context) looks the kernel up in the kernel cache by a key of everything
that determines its binary (`numba_keys.key_fields`):

- hit: the cubin is loaded into the current context (numba's `_Kernel` and code library are
  rebuilt from plain data: entry point name, argument types, compute capability) and launched.
  Numba's typing, lowering, NVVM and linker do not run; no numba dispatcher is even created;
- miss: numba compiles the rewritten kernel as it always did (the kernel's dispatcher,
  specialised for those types), and the linked cubin, its PTX and what a launch needs are stored;
- a cubin the driver refuses to load is rejected (dropped from the cache, logged), compiled again
  and replaced.

Every later launch with those argument types in that context takes a short path: the types of
the arguments (numba's typeof, with shortcuts for device arrays and Python scalars) select the
loaded kernel in a dict, the arguments are marshalled exactly as numba's `_Kernel.launch` does
(host arrays are copied to the device and back), and `cuda.core.launch` runs it with a launch
configuration made once per grid, block, stream and shared-memory size. No numba dispatcher is
involved. With SAFEKERN_CACHE=off the same path runs, compiling in each process.

What stays on numba's own path (`launch` returns False and numba_cuda launches as before):
kernels built with `debug=True` or `extensions`, kernels that need NRT, cooperative launches or
launch-configuration-sensitive compilation, linked code with setup callbacks, signature-eager
kernels launched with types that fit none (or several) of their signatures, argument values
numba cannot type, compile errors (numba reports them in its own words), and anything that
goes wrong on the way (a CacheWarning says what). Kernels whose compilation captures something
a key cannot describe (a global of an unknown type, a global device array) still take the short
path, compiled in each process and never stored.

The payload (`pack_kernel`): JSON metadata (entry point, argument types as plain data, cc,
lineinfo, max_registers, lto, carveout) and the blobs `cubin` and `ptx`. Nothing in it is
executed as host code.
"""
from __future__ import annotations

import ctypes
import logging
from collections import Counter

import numpy as np

from ... import runtime
from .options import compile_warnings, occupancy_warning, replay_warnings
from .keys import (PAYLOAD_VERSION, NotLaunchable, Uncacheable, device_fields, key_fields,
                   launch_obstacle, type_from_data, type_to_data, types)

log = logging.getLogger("safekern.numba")

#: What happened, process-wide (tests and benchmarks read it): hit, miss, compile, load,
#: reject, numba_path, uncacheable. Only set-up events are counted, never launches.
STATS: Counter = Counter()

NUMBA = "numba"          # a table value: launch these argument types through numba's dispatcher


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
    from ...cache.kernels import pack_payload

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
    from ...cache.kernels import unpack_payload

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
    return core_stream, cfg


_by_handle: dict = {}


def fast_source():
    """The current context's failure source: one driver call and a dict lookup, or
    numba_cuda.current_source() (which makes a context current if none is)."""
    from . import kernel as numba_cuda

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
        if retr:                 # host arrays were copied back: the user holds results now
            runtime.sync_point(source.context)

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

    def _launchable(self, source, args):
        """What launches these arguments in this context, or NUMBA (numba's path)."""
        table = self._tables.get(source)
        if table is None:
            table = self._tables.setdefault(source, _Table())
        try:
            argtypes = argument_types(args)
        except Exception:             # noqa: BLE001 - numba cannot type it: numba says so
            return NUMBA
        key = tuple(map(id, argtypes))
        spec = table.by_key.get(key)
        if spec is None:
            spec = self._resolve(table, key, argtypes, source)
        return spec

    def launch(self, launch_config, args) -> bool:
        """Launch `kernel[launch_config](*args)` on the short path; False: not done, launch it
        through numba."""
        source = fast_source()
        spec = self._launchable(source, args)
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
        if ntasks == 0:
            return True                  # numba's ForAll launches nothing
        source = fast_source()
        spec = self._launchable(source, args)
        if spec is NUMBA:
            return False
        blockdim = tpb or spec.threads_per_block(source.context, sharedmem)
        griddim = (ntasks + blockdim - 1) // blockdim
        occupancy_warning(griddim)          # numba's ForAll configures (and warns) each call
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
        from . import kernel as numba_cuda

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
        except Exception as err:         # noqa: BLE001 - numba's build reports its own errors
            if self.kernel._numba is None:
                _warn(self.kernel, "loading its signatures from the cache", err)
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
                except Exception as err:     # noqa: BLE001 - never stops a kernel numba can run
                    _warn(self.kernel, "finding its cached or compiled binary", err)
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
        from ...cache.kernels import get_kernel_cache

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

        said: list = []

        def build() -> bytes:
            with compile_warnings(said):
                k = self._compile(argtypes)
            compiled.append(k)
            if k is NUMBA:
                raise _NotStored()
            if self.kernel._final_rewrite().source != fields["function"]["source"]:
                raise _NotStored()       # compiled from another rewrite than the key names
            why = storable(k)
            if why:
                raise _NotStored()
            try:
                return pack_kernel(k, argtypes, cc, said)
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
        if compiled:
            STATS["miss"] += 1
            return self._spec(compiled[0], argtypes, source, from_cache=False)
        return self._from_payload(payload, argtypes, source, kc, fields, describe,
                                  retry=retry)

    def _from_payload(self, payload, argtypes, source, kc, fields, describe, retry=True):
        STATS["hit"] += 1
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
        replay_warnings(meta.get("warnings"))
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


def _warn(kernel, doing, err) -> None:
    from ...cache.trust import warn_once

    log.debug("numba kernel %r: %s failed", kernel.__qualname__, doing, exc_info=True)
    warn_once(("numba-binary", doing, type(err).__name__),
              f"safekern: {doing} of numba kernel {kernel.__qualname__!r} failed "
              f"({type(err).__name__}: {err}); it is launched by numba, uncached")


__all__ = ["BinaryLauncher", "Spec", "STATS", "argument_types", "pack_kernel", "unpack_kernel",
           "rebuild_kernel", "argument_plan", "marshal", "launch_params", "fast_source",
           "cc_triple", "storable"]
