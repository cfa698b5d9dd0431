"""Warm starts of checked numba kernels: cubins in the kernel cache, launched without numba.

A `CheckedKernel` on a real GPU gets a `BinaryLauncher` of its `Build` (build.py). The first
launch with a given set of argument types (per CUDA context) looks the kernel up in the kernel
cache by a key of everything that determines its binary (`keys.key_fields`), through the cache's
one build-or-load path (`get_or_build`):

- hit: the cubin is loaded into the current context (numba's `_Kernel` and code library are
  rebuilt from plain data: entry point name, argument types, compute capability) and launched.
  Numba's typing, lowering, NVVM and linker do not run; no numba dispatcher is even created;
- miss: numba compiles the rewritten kernel as it always did (the kernel's dispatcher,
  specialised for those types), and the linked cubin, its PTX and what a launch needs are stored;
- a cubin the driver refuses to load is rejected (dropped from the cache, logged), compiled again
  and replaced (inside get_or_build).

Every later launch with those argument types in that context takes a short path: the types of
the arguments (marshal.py: numba's typeof, with shortcuts for device arrays and Python scalars)
select the loaded kernel in a dict, the arguments are marshalled exactly as numba's
`_Kernel.launch` does (host arrays are copied to the device and back), and `cuda.core.launch`
runs it with a launch configuration made once per grid, block, stream and shared-memory size.
No numba dispatcher is involved. With SAFEKERN_CACHE=off the same path runs, compiling in each
process.

A kernel decorated with `cache=True` keeps its binaries in numba's own on-disk cache instead
(disk_cache.py): the first launch with given argument types is numba's (which loads or compiles
and counts it in `stats`), later ones take the short path with numba's kernel.

What stays on numba's own path (`launch` returns False and the kernel launches through numba's
dispatcher, kernel.py): kernels built with `debug=True` or `extensions`, kernels that need NRT,
cooperative launches or launch-configuration-sensitive compilation, linked code with setup
callbacks, signature-eager kernels launched with types that fit none (or several) of their
signatures, argument values numba cannot type, compile errors (numba reports them in its own
words), and anything that goes wrong on the way (a CacheWarning says what). Kernels whose compilation captures something
a key cannot describe (a global of an unknown type, a global device array) still take the short
path, compiled in each process and never stored.

What is stored: payload.py.
"""
from __future__ import annotations

import ctypes
import logging
from collections import Counter

from ... import runtime
from ...cache.kernels import get_kernel_cache, get_or_build
from ...cache.trust import warn_once
from ...memo import BoundedMemo
from .device import current_source, fast_source, load_driver
from .keys import NotLaunchable, device_fields, key_fields, launch_obstacle
from .marshal import Numba, argument_plan, argument_types, marshal
from .launching import occupancy_warning
from .options import compile_warnings, replay_warnings
from .payload import (Uncacheable, pack_kernel, rebuild_kernel, storable, types,
                      unpack_kernel)

log = logging.getLogger("safekern.numba")

#: What happened, process-wide (tests and benchmarks read it): hit, miss, compile, load,
#: reject, numba_path, uncacheable. Only set-up events are counted, never launches.
STATS: Counter = Counter()

NUMBA = "numba"          # a table value: launch these argument types through numba's dispatcher
LATER = "later"          # numba's dispatcher this time, the short path may take the next ones


# -- launch configurations ----------------------------------------------------------------------

_params = BoundedMemo(512)


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
            _params.put(launch_config, params)
    return params


def _make_params(launch_config):
    if not isinstance(launch_config, tuple) or len(launch_config) not in (2, 3, 4):
        return None
    griddim, blockdim, stream, sharedmem = (launch_config + (0, 0))[:4]
    try:
        griddim, blockdim = Numba.normalize(griddim, blockdim)
    except (TypeError, ValueError):
        return None
    core_stream = Numba.to_core_stream(stream)
    if Numba.core_ge_1_0:
        cfg = Numba.LaunchConfig(grid=griddim, block=blockdim, shmem_size=sharedmem,
                                 is_cooperative=False)
    else:                                       # pragma: no cover - older cuda.core
        cfg = Numba.LaunchConfig(grid=griddim, block=blockdim, shmem_size=sharedmem,
                                 cooperative_launch=False)
    return core_stream, cfg


# -- a loaded kernel ------------------------------------------------------------------------------

class Spec:
    """A kernel compiled (or loaded) for one tuple of argument types, bound to one context."""

    __slots__ = ("kernel", "argtypes", "plan", "cu_kernel", "cufunc", "fb", "from_cache",
                 "tpb")

    def __init__(self, kernel, argtypes, source, from_cache: bool, hidden: bool = True):
        self.kernel = kernel
        self.argtypes = tuple(argtypes)
        self.from_cache = from_cache
        # The last argument: the failure buffer's address (none for numba's own kernel of a
        # function: plain.py).
        self.plan = argument_plan(self.argtypes[:-1] if hidden else self.argtypes)
        kernel.bind()                                      # loads the module into this context
        self.cufunc = kernel._codelibrary.get_cufunc()
        self.cu_kernel = self.cufunc.kernel
        self.fb = ctypes.c_int64(source.argument) if hidden else None
        self.tpb: dict = {}

    def run(self, args, params, source) -> None:
        stream, cfg = params
        retr = []
        kernelargs = marshal(self.plan, args, stream, retr, self.kernel)
        fb = self.fb
        if fb is not None:
            kernelargs.append(fb)
        Numba.launch(stream, cfg, self.cu_kernel, *kernelargs)
        for wb in retr:
            wb()
        if fb is not None:        # numba's own kernel of a function records nothing
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


# -- the launcher ------------------------------------------------------------------------------------

class BinaryLauncher:
    """The short launch path of one CheckedKernel (see the module doc). `build` is the kernel's
    Build (build.py): its name, options, signatures, lock, numba's dispatcher, final rewrite."""

    def __init__(self, build):
        Numba.load()
        load_driver()
        self.build = build
        self._hidden = getattr(build, "hidden", True)
        self._tail = (types.int64,) if self._hidden else ()     # the failure buffer's address
        self._tables: dict = {}
        self._obstacle = launch_obstacle(build.options)
        self._sig_types = None
        if build.sigs is not None:
            from numba.cuda.core.sigutils import normalize_signature

            sigs = []
            for sig in build.sigs:
                args, _ = normalize_signature(sig)
                sigs.append(tuple(args) + self._tail)
            self._sig_types = sigs

    def compiled_types(self) -> list:
        """Every tuple of argument types (hidden argument included) launched so far, in any
        context (numba's dispatcher compiles them when asked for its overloads)."""
        return [argtypes for table in list(self._tables.values())
                for argtypes in list(table.by_types)]

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

    def launch(self, launch_config, args, source=None) -> bool:
        """Launch `kernel[launch_config](*args)` on the short path; False: not done, launch it
        through numba. (`source`: the current context's failure source, if known.)"""
        if source is None:
            source = fast_source()
        # (_launchable and launch_params inline: this runs at every launch)
        table = self._tables.get(source)
        try:
            argtypes = argument_types(args)
            spec = table.by_key.get(tuple(map(id, argtypes)))
            params = _params.get(launch_config)
        except Exception:            # noqa: BLE001 - no table yet, an odd argument or config
            spec = None
        if spec is None:
            spec = self._launchable(source, args)
            if spec is NUMBA:
                return False
            params = launch_params(launch_config)
        elif spec is NUMBA:
            return False
        elif params is None:
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
        source = current_source()
        table = self._tables.setdefault(source, _Table())
        try:
            for argtypes in self._sig_types:
                if self._specialise(table, argtypes, source, lookup_only=True) is None:
                    self.build.dispatcher()      # numba compiles every signature, as numba does
                    break
            for argtypes in self._sig_types:
                if self._specialise(table, argtypes, source) in (NUMBA, LATER):
                    return False
        except _Failed:
            return False
        except Exception as err:         # noqa: BLE001 - numba's build reports its own errors
            if self.build.numba is None:
                _warn(self.build, "loading its signatures from the cache", err)
            return False
        return True

    # -- finding the kernel for a tuple of argument types -----------------------------------------

    def _resolve(self, table, key, argtypes, source):
        spec = NUMBA
        if self._obstacle:
            STATS["numba_path"] += 1
        else:
            full = tuple(argtypes) + self._tail
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
                    _warn(self.build, "finding its cached or compiled binary", err)
                    spec = NUMBA
        if spec is LATER:
            return NUMBA                 # this launch numba's; the next one asks again
        table.keep.append(argtypes)
        table.by_key[key] = spec
        return spec

    def _specialise(self, table, argtypes, source, lookup_only=False):
        """The Spec for `argtypes` (hidden argument included) in `source`'s context: from the
        cache, or compiled by numba (and stored). NUMBA: launch through numba (a compile error,
        which numba then reports, or a kernel the short path cannot launch). With `lookup_only`,
        None when the cache does not have it."""
        with self.build.lock:
            spec = table.by_types.get(argtypes)
            if spec is not None:
                return spec
            spec = self._make_spec(argtypes, source, lookup_only)
            if spec is not None and spec is not LATER:
                table.by_types[argtypes] = spec
            return spec

    def _make_spec(self, argtypes, source, lookup_only):
        build = self.build
        if build.options.get("cache"):
            return self._numba_cached(argtypes, source, lookup_only)
        kc = get_kernel_cache()
        fields = None
        if kc is not None:
            try:
                fields = key_fields(build, argtypes, device_fields(source.context))
            except Uncacheable as why:
                STATS["uncacheable"] += 1
                log.debug("numba kernel %r not cached: %s", build.name, why)
            except NotLaunchable as why:
                STATS["numba_path"] += 1
                log.debug("numba kernel %r launched by numba: %s", build.name, why)
                return NUMBA
            except Exception as err:     # noqa: BLE001 - a bug here must not stop the kernel
                _warn(build, "computing its cache key", err)
                fields = None
        describe = f"numba kernel {build.name!r}"
        if fields is None:
            if lookup_only:
                return None
            compiled = self._compile(argtypes)
            if compiled is NUMBA:
                return NUMBA
            return self._spec(compiled, argtypes, source, from_cache=False)
        if lookup_only and kc.lookup(fields, describe=describe) is None:
            return None
        return self._get_or_build(argtypes, source, fields, describe)

    def _numba_cached(self, argtypes, source, lookup_only):
        """cache=True: numba's own on-disk cache holds the binaries (disk_cache.py). numba's
        launch compiles or loads them -- its stats count that, its launch configuration is
        current while it does --; later launches take the short path with what it made.
        LATER: not made yet, launch through numba (None with `lookup_only`)."""
        numba = self.build.numba
        kernel = None if numba is None else numba.overloads.get(tuple(argtypes))
        if kernel is None:
            return None if lookup_only else LATER
        return self._spec(kernel, argtypes, source, from_cache=False)

    def _get_or_build(self, argtypes, source, fields, describe):
        """The Spec from the cache's one build-or-load path: a cubin the driver refuses is
        rejected and compiled again there, once; refused again, the short path gives up."""
        compiled, refused = [], []
        cc = source.context.device.compute_capability
        said: list = []

        def build():
            with compile_warnings(said):
                k = self._compile(argtypes)
            compiled.append(k)
            if k is NUMBA:
                raise _NotStored()
            if self.build.final_rewrite().source != fields["function"]["source"]:
                raise _NotStored()       # compiled from another rewrite than the key names
            if storable(k):
                raise _NotStored()
            try:
                return pack_kernel(k, argtypes, cc, said), k
            except Uncacheable as err:
                log.debug("%s not stored: %s", describe, err)
                raise _NotStored() from None

        def load(payload):
            STATS["hit"] += 1
            try:
                meta, cubin, ptx = unpack_kernel(payload, argtypes)
                kernel = rebuild_kernel(meta, cubin, ptx, argtypes, self.build.py_func)
                spec = Spec(kernel, argtypes, source, from_cache=True, hidden=self._hidden)
            except Exception as err:      # noqa: BLE001 - the driver refused it, or damage
                STATS["reject"] += 1
                refused.append(err)
                raise
            STATS["load"] += 1
            replay_warnings(meta.get("warnings"))
            return spec

        meta = {"kernel": self.build.name, "backend": "numba-cuda",
                "device": fields.get("device_name"),
                "arg_types": [str(t) for t in argtypes[:len(argtypes) - len(self._tail)]]}
        try:
            spec = get_or_build(fields, build, load, describe=describe, meta=meta)
        except _NotStored:
            if not compiled or compiled[0] is NUMBA:
                return NUMBA
            return self._spec(compiled[0], argtypes, source, from_cache=False)
        except Exception as err:
            if refused and err is refused[-1]:
                raise _Failed() from err     # refused twice: numba's path
            raise
        if compiled:
            STATS["miss"] += 1
            return self._spec(spec, argtypes, source, from_cache=False)
        return spec

    def _compile(self, argtypes):
        """numba's compile of the rewritten kernel for `argtypes`: its `_Kernel`, or NUMBA when
        it fails (numba's own launch path then raises the error as numba words it)."""
        try:
            kernel = self.build.dispatcher().compile(tuple(argtypes))
        except Exception as err:          # noqa: BLE001 - reported by numba's path
            log.debug("numba kernel %r: compile for %s failed (%s); numba's path reports it",
                      self.build.name, argtypes, err)
            STATS["numba_path"] += 1
            return NUMBA
        STATS["compile"] += 1
        return kernel

    def _spec(self, compiled, argtypes, source, from_cache):
        why = storable(compiled)
        if why:
            STATS["numba_path"] += 1
            log.debug("numba kernel %r launched by numba: %s", self.build.name, why)
            return NUMBA
        try:
            return Spec(compiled, argtypes, source, from_cache=from_cache, hidden=self._hidden)
        except Exception as err:          # noqa: BLE001
            _warn(self.build, "loading its compiled module", err)
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


def _warn(build, doing, err) -> None:
    log.debug("numba kernel %r: %s failed", build.name, doing, exc_info=True)
    warn_once(("numba-binary", doing, type(err).__name__),
              f"safekern: {doing} of numba kernel {build.name!r} failed "
              f"({type(err).__name__}: {err}); it is launched by numba, uncached")


__all__ = ["BinaryLauncher", "Spec", "STATS", "NUMBA", "launch_params"]
