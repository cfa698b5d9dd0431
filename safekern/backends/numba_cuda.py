"""numba-cuda backend: compile rewritten kernels with numba, launch them with the failure buffer.

`jit` accepts every form `numba.cuda.jit` does. With SAFEKERN_CHECKS=0 it *is* numba.cuda.jit.
A CheckedKernel rewrites its source at decoration (so unsupported constructs fail there, naming
file:line), and builds numba's dispatcher from the rewritten function on first use, or at once
when signatures are given (as numba compiles eagerly then).

On a real GPU a launch first tries the kernel's `numba_binary.BinaryLauncher`: the cubin for the
arguments' types from the kernel cache (or compiled by numba's dispatcher and stored), launched
without numba's typing or dispatch; a warm start creates no numba dispatcher at all. Kernels that
need numba's own launch (debug=True, NRT, ...) fall through to the dispatcher as before.
"""
from __future__ import annotations

import ast
import threading
import warnings

import numpy as np
from numba import cuda

from .. import config, runtime
from .._toolkit import explain_missing_toolkit
from ..failures import BUFFER_LEN
from ..frontend import python as pyfront
from ..frontend.python import INDEXED_ATOMICS
from . import numba_rewrites, numba_sync

from numba.cuda.core import config as _numba_config  # noqa: E402

SIMULATOR = bool(_numba_config.ENABLE_CUDASIM)
BARRIERS = ("syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or")
_MISSING = object()


def _helpers_namespace() -> dict:
    if SIMULATOR:
        from . import numba_sim
        return numba_sim.namespace()
    from . import numba_helpers
    return numba_helpers.namespace()


# -- name resolution: which calls are atomics, barriers, checked device functions -----------------


class NumbaResolver:
    def __init__(self):
        self._known = {}
        atomic = getattr(cuda, "atomic", None)
        if atomic is not None:
            for op in INDEXED_ATOMICS + ("compare_and_swap",):
                if hasattr(atomic, op):
                    self._known[id(getattr(atomic, op))] = ("atomic", op)
        for name in BARRIERS:
            if hasattr(cuda, name):
                self._known[id(getattr(cuda, name))] = ("barrier", name)

    @staticmethod
    def resolve(expr, parsed):
        if isinstance(expr, ast.Name):
            for scope in (parsed.closure, parsed.globals, __builtins__ if isinstance(
                    __builtins__, dict) else vars(__builtins__)):
                if expr.id in scope:
                    return scope[expr.id]
            return _MISSING
        if isinstance(expr, ast.Attribute):
            base = NumbaResolver.resolve(expr.value, parsed)
            if base is _MISSING:
                return _MISSING
            return getattr(base, expr.attr, _MISSING)
        return _MISSING

    def is_cuda_module(self, expr, parsed) -> bool:
        """Does `expr` name the numba.cuda module (for cuda.threadIdx.x, cuda.grid, ...)?"""
        return self.resolve(expr, parsed) is cuda

    def classify_call(self, func, parsed):
        if isinstance(func, ast.Attribute):
            # cuda.atomic.add / cuda.syncthreads / cuda.cg.this_grid, by the module they hang on
            inner = func.value
            if isinstance(inner, ast.Attribute) and inner.attr == "atomic" and \
                    self.is_cuda_module(inner.value, parsed) and func.attr in \
                    INDEXED_ATOMICS + ("compare_and_swap",):
                return ("atomic", func.attr)
            if func.attr in BARRIERS and self.is_cuda_module(inner, parsed):
                return ("barrier", func.attr)
            if func.attr == "this_grid":
                return ("unsupported", "grid-wide synchronisation (cuda.cg.this_grid()) cannot "
                        "be made failure-safe: a failing block cannot leave while the grid "
                        "waits for it; launch without safekern or restructure into launches")
        obj = self.resolve(func, parsed)
        if obj is _MISSING:
            return None
        if isinstance(obj, CheckedDeviceFunction):
            return ("device", obj)
        known = self._known.get(id(obj))
        if known is not None:
            return known
        if _is_numba_device_function(obj):
            return ("plain_device", ast.unparse(func))
        return None


def _is_numba_device_function(obj) -> bool:
    if SIMULATOR:
        return type(obj).__name__ == "FakeCUDAKernel" and getattr(obj, "_device", False)
    targetoptions = getattr(obj, "targetoptions", None)
    return isinstance(targetoptions, dict) and targetoptions.get("device", False)


_RESOLVER = None


def _resolver() -> NumbaResolver:
    global _RESOLVER
    if _RESOLVER is None:
        _RESOLVER = NumbaResolver()
    return _RESOLVER


# -- building the numba function from the rewritten tree ---------------------------------------------


def _compile_rewritten(rewritten, device_impls: dict):
    parsed = rewritten.parsed
    namespace = dict(parsed.globals)
    namespace.update(parsed.closure)
    namespace.update(_helpers_namespace())
    namespace.update(device_impls)
    code = compile(rewritten.tree, parsed.filename, "exec")
    exec(code, namespace)
    fn = namespace[parsed.name]
    fn.__module__ = getattr(parsed.pyfunc, "__module__", None)
    # A name of its own, so numba's cache=True never confuses it with the unchecked function.
    fn.__qualname__ = getattr(parsed.pyfunc, "__qualname__", parsed.name) + "__safekern"
    fn.__doc__ = getattr(parsed.pyfunc, "__doc__", None)
    return fn


def _supported_options(options: dict) -> dict:
    """The simulator's jit takes fewer options than numba's; it ignores code generation ones."""
    if not SIMULATOR:
        return dict(options)
    import inspect

    accepted = inspect.signature(cuda.jit).parameters
    return {k: v for k, v in options.items() if k in accepted}


class _assume_device:
    """Without a GPU, numba-cuda compiles device functions for "the current device"; let that
    be a device of compute capability `cc` (only while compiling PTX, only without a GPU)."""

    def __init__(self, cc):
        self.cc = tuple(cc)
        self.saved = None

    def __enter__(self):
        if cuda.is_available():
            return self
        import numba.cuda.dispatcher as dispatcher

        cc = self.cc
        self.saved = dispatcher.get_current_device
        dispatcher.get_current_device = lambda: type("AssumedDevice", (), {
            "compute_capability": cc})()
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            import numba.cuda.dispatcher as dispatcher
            dispatcher.get_current_device = self.saved


def _warn_plain_calls(rewritten):
    for lineno, name in rewritten.plain_device_calls:
        warnings.warn_explicit(
            f"safekern: {name!r} is a plain numba device function: accesses inside it are "
            "not checked; decorate it with @safekern.jit(device=True)",
            UserWarning, rewritten.parsed.filename, lineno)


def _with_hidden(sig, device: bool):
    """A user signature with the hidden parameters appended."""
    from numba.cuda import types
    from numba.cuda.core.sigutils import normalize_signature

    args, ret = normalize_signature(sig)
    if device:
        hidden = (types.Array(types.int64, 1, "C"), types.Array(types.int32, 1, "C"))
    else:
        hidden = (types.int64,)      # the failure buffer's address
    if ret is None:
        ret = types.void if not device else None
    return ret(*args, *hidden) if ret is not None else tuple(args) + hidden


_SCALAR_TYPES = (int, float, bool, str, complex, bytes, type(None))


def _scope_snapshot(parsed) -> tuple:
    """What each name in the function's source means now: data by value, other objects by
    identity (held, so an identity cannot be reused)."""
    names = sorted({n.id for n in ast.walk(parsed.tree) if isinstance(n, ast.Name)})
    return tuple((name, parsed.closure.get(name, parsed.globals.get(name, _MISSING)))
                 for name in names)


def _same_scope(a, b) -> bool:
    if len(a) != len(b):
        return False
    for (name_a, x), (name_b, y) in zip(a, b):
        if name_a != name_b or type(x) is not type(y):
            return False
        if x is not y and not (type(x) in _SCALAR_TYPES and x == y):
            return False
    return True


class _CheckedFunction:
    """What kernels and device functions share: source, rewrite, lazily built numba function."""

    device = False

    def __init__(self, pyfunc, sigs, options):
        self.py_func = pyfunc
        self.__name__ = getattr(pyfunc, "__name__", "kernel")
        self.__qualname__ = getattr(pyfunc, "__qualname__", self.__name__)
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self.__module__ = getattr(pyfunc, "__module__", None)
        self._sigs = sigs
        self._options = options
        self._lock = threading.RLock()
        self._numba = None
        self.parsed = pyfront.parse_function(pyfunc)
        # Rewrite now: an unsupported construct is an error at decoration time. (The kernel
        # cache may hold this rewrite from an earlier process: only successful ones are kept.)
        self._scope = _scope_snapshot(self.parsed)
        self.rewritten = numba_rewrites.rewrite(self, self._rewrite)
        self._final = None

    def _rewrite(self):
        return pyfront.rewrite_function(self.parsed, device=self.device, resolver=_resolver(),
                                        eliminate_checks=config.get().eliminate)

    @property
    def has_barriers(self) -> bool:
        return self.rewritten.has_barriers

    def _final_rewrite(self):
        """The rewrite a build compiles (and the kernel cache keys on): the decoration's, or a
        new one if a name the function uses means something else now (a device function
        defined after this function, a global constant rebound)."""
        with self._lock:
            if self._final is None:
                if not _same_scope(_scope_snapshot(self.parsed), self._scope):
                    self.rewritten = self._rewrite()
                _warn_plain_calls(self.rewritten)
                self._final = self.rewritten
            return self._final

    def _build(self):
        with self._lock:
            if self._numba is not None:
                return self._numba
            rewritten = self._final_rewrite()
            if numba_rewrites.is_stored(rewritten):
                # A rewrite from the kernel cache has no line numbers: compile a fresh one.
                rewritten = numba_rewrites.fresh(self, rewritten, self._rewrite)
                self.rewritten = self._final = rewritten
            impls = {name: dev._build() for name, dev in rewritten.device_calls.items()}
            fn = _compile_rewritten(rewritten, impls)
            options = _supported_options(self._options)
            if self.device:
                options["device"] = True
            if self._sigs is not None and not SIMULATOR:
                sigs = [_with_hidden(s, self.device) for s in self._sigs]
                self._numba = cuda.jit(sigs if len(sigs) > 1 else sigs[0], **options)(fn)
            else:
                self._numba = cuda.jit(**options)(fn)
            return self._numba

    def check_report(self) -> list[dict]:
        """Every access in this function: what it indexes, where, and whether it is checked."""
        rows = [{"line": s.lineno, "kind": s.kind, "array": s.array, "status": s.status,
                 "reason": s.reason, "code": s.code} for s in self.rewritten.sites]
        races = getattr(self, "_races", None)
        return rows + (races.report() if races is not None else [])

    def compile_ptx(self, signature, cc=(9, 0), **options):
        """PTX of the checked kernel for `signature` (user's types) and compute capability `cc`.

        Works without a GPU, as numba.cuda.compile_ptx does.
        """
        if SIMULATOR:
            raise RuntimeError("PTX cannot be generated under the CUDA simulator")
        self._build()
        fn = _compile_rewritten(self.rewritten, {n: d._build() for n, d in
                                                 self.rewritten.device_calls.items()})
        sig = _with_hidden(signature, self.device)
        args = sig if isinstance(sig, tuple) else sig.args
        opts = {k: v for k, v in self._options.items()
                if k in ("fastmath", "lineinfo", "debug", "opt")}
        opts.update(options)
        with _assume_device(cc), explain_missing_toolkit("compiling to PTX", self.__qualname__):
            ptx, _ = cuda.compile_ptx(fn, args, cc=cc, device=self.device, **opts)
        return ptx

    @property
    def rewritten_source(self) -> str:
        return self.rewritten.source

    def __getattr__(self, name):
        # Everything else (inspect_asm, overloads, specialize, ...) is numba's dispatcher's.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._build(), name)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<safekern checked {kind} {self.__qualname__!r}>"


class CheckedDeviceFunction(_CheckedFunction):
    device = True

    def __call__(self, *args):
        raise TypeError(f"{self.__name__!r} is a device function: call it from a "
                        "@safekern.jit kernel")


class CheckedKernel(_CheckedFunction):
    _binary = None       # numba_binary.BinaryLauncher: cached cubins, launched directly
    _races = None        # race_check.RaceChecker, for kernels that write an array parameter

    def __init__(self, pyfunc, sigs, options):
        super().__init__(pyfunc, sigs, options)
        if config.get().races != "off":
            from ..race_check import RaceChecker
            from ..frontend.races import analyse_kernel

            checker = RaceChecker(analyse_kernel(self.parsed, _resolver()),
                                  kernel=self.__name__, filename=self.parsed.filename)
            self._races = checker if checker.needed else None
        if not SIMULATOR:
            from .numba_binary import BinaryLauncher

            self._binary = BinaryLauncher(self)
        if sigs is not None and (SIMULATOR or cuda.is_available()):
            # Eager, like numba (from the kernel cache when it has every signature); without a
            # GPU, deferred (PTX still works).
            if self._binary is None or not self._binary.prepare_signatures():
                self._build()

    def __getitem__(self, launch_config):
        return _Launch(self, launch_config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        return _ForAll(self, ntasks, tpb, stream, sharedmem)

    def __call__(self, *args, **kwargs):
        # numba's own message for a kernel launched without a configuration.
        return self._build()(*args, **kwargs)


class _Launch:
    __slots__ = ("kernel", "config")

    def __init__(self, kernel, config):
        self.kernel = kernel
        self.config = config

    def __call__(self, *args):
        races = self.kernel._races
        if races is not None:      # before anything runs: a proven race writes nothing
            races.check(args, self.config[0], self.config[1])
        binary = self.kernel._binary
        if binary is not None and binary.launch(self.config, args):
            return
        numba_kernel = self.kernel._numba or self.kernel._build()
        source = current_source()
        _launch_through_numba(source, args, numba_kernel[self.config], args + (source.argument,))


def _launch_through_numba(source, args, launch, launch_args) -> None:
    """numba's own launch of a checked kernel, then safekern's after-launch steps."""
    if SIMULATOR:
        try:
            launch(*launch_args)
        except Exception as exc:
            if not runtime.launch_raised(source, exc):
                raise
            # A check failed first and exc is what a stand-in value did next: the launch
            # returns as it would on a GPU, the failure raises at the next sync point.
    else:
        launch(*launch_args)
    runtime.after_launch(source)
    if numba_sync.has_host_arrays(args):
        numba_sync.host_arrays_copied_back()


class _ForAll:
    def __init__(self, kernel, ntasks, tpb, stream, sharedmem):
        self.kernel, self.args = kernel, (ntasks, tpb, stream, sharedmem)

    def __call__(self, *args):
        binary = self.kernel._binary
        if binary is not None and binary.forall(*self.args, args):
            return
        numba_kernel = self.kernel._numba or self.kernel._build()
        source = current_source()
        _launch_through_numba(source, args, numba_kernel.forall(*self.args),
                              args + (source.argument,))


# -- failure buffers, one per CUDA context ------------------------------------------------------


class NumbaFailureSource(runtime.FailureSource):
    def __init__(self, context):
        super().__init__()
        self.context = context
        self.buffer = cuda.to_device(np.zeros(BUFFER_LEN, dtype=np.int64))
        # What launches pass: the address (a scalar argument costs numba less host time than
        # an array), or under the simulator the array itself.
        self.argument = self.buffer if SIMULATOR else int(self.buffer.device_ctypes_pointer.value)
        device = getattr(context, "device", None)
        self.device_id = getattr(device, "id", 0)
        self.name = f"CUDA device {self.device_id}" + (" (simulator)" if SIMULATOR else "")

    def matches(self, target) -> bool:
        if target is None or target is self.context:
            return True
        device = getattr(target, "id", None)
        if isinstance(target, int):
            device = target
        if device is not None and device == self.device_id:
            return True
        if type(target).__name__.lower() == "stream":   # a numba stream (or the simulator's)
            ctx = getattr(target, "context", None)
            return SIMULATOR or ctx is None or ctx is self.context
        return False

    def synchronize(self) -> None:
        if SIMULATOR:
            return
        with cuda.gpus[self.device_id]:
            cuda.synchronize()

    def read(self) -> list[int]:
        with _device_scope(self.device_id):
            return [int(v) for v in self.buffer.copy_to_host()]

    def reset(self) -> None:
        with _device_scope(self.device_id):
            self.buffer.copy_to_device(np.zeros(BUFFER_LEN, dtype=np.int64))


def _device_scope(device_id):
    if SIMULATOR:
        import contextlib
        return contextlib.nullcontext()
    return cuda.gpus[device_id]


_sources: dict[int, NumbaFailureSource] = {}
_last = [object(), None]      # (context, source): launches mostly hit the same context
_sources_lock = threading.Lock()


def current_source() -> NumbaFailureSource:
    # The simulator makes a new context object per call: it has one device, one buffer.
    context = cuda.current_context() if not SIMULATOR else None
    if context is _last[0]:
        return _last[1]
    with _sources_lock:
        source = _sources.get(id(context))
        if source is None or source.context is not context:
            # (A context that was destroyed and whose id was reused gets a new buffer.)
            source = NumbaFailureSource(context)
            _sources[id(context)] = source
        _last[0], _last[1] = context, source
    return source


def _plain_sync(target=None):
    if not SIMULATOR:
        cuda.synchronize()


runtime.register_plain_sync(_plain_sync)

# -- the decorator ------------------------------------------------------------------------------


def jit(func_or_sig=None, device=False, **options):
    """`numba.cuda.jit` with every indexed access checked (see module doc)."""
    if not config.get().checks:
        return cuda.jit(func_or_sig, device=device, **options)
    if options.get("boundscheck"):
        options.pop("boundscheck")     # safekern's checks replace numba's CPU-only ones
    cls = CheckedDeviceFunction if device else CheckedKernel
    numba_sync.install()

    def decorate(fn, sigs=None):
        return cls(fn, sigs, options)

    if func_or_sig is None:
        return decorate
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, list, tuple)):
        return decorate(func_or_sig)
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return lambda fn: decorate(fn, sigs)


__all__ = ["jit", "CheckedKernel", "CheckedDeviceFunction", "current_source"]
