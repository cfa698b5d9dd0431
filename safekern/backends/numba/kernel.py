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
import copy
import dataclasses
import threading
import warnings

import numpy as np
from numba import cuda

from ... import config, runtime
from ..._toolkit import explain_missing_toolkit
from ...failures import BUFFER_LEN, TABLE
from ...frontend import python as pyfront
from . import options as numba_options, stored as numba_rewrites, sync as numba_sync
from .surface import (DispatcherSurface, HiddenArgument, UserExtensions,
                      numba_errors_in_user_terms, validate_forall, validate_launch_config)
from .configured import LaunchConfigSurface, compile_for_args, mark_launch_config_sensitive
from .unchecked import UncheckedFunction, plain_build, unchecked

from numba.cuda.core import config as _numba_config  # noqa: E402

SIMULATOR = bool(_numba_config.ENABLE_CUDASIM)
_MISSING = object()


def _helpers_namespace() -> dict:
    if SIMULATOR:
        from . import sim as numba_sim
        return numba_sim.namespace()
    from . import intrinsics as numba_helpers
    return numba_helpers.namespace()


# -- name resolution (resolver.py) ----------------------------------------------------------

from .resolver import resolver as _resolver  # noqa: E402


# -- building the numba function from the rewritten tree ---------------------------------------------


def _compile_rewritten(rewritten, device_impls: dict, namespace=None, cache=False):
    """The rewritten function, defined in `namespace` (a new one by default: the function's
    globals, closure, the check helpers and the callees' numba functions)."""
    parsed = rewritten.parsed
    if namespace is None:
        namespace = {}
    namespace.update(parsed.globals)
    namespace.update(parsed.closure)
    for name, value in namespace.items():
        if isinstance(value, UncheckedFunction):      # numba calls numba's own dispatcher
            namespace[name] = value._numba
    namespace.update(_helpers_namespace())
    namespace.update(device_impls)
    code = compile(rewritten.tree, parsed.filename, "exec")
    exec(code, namespace)
    fn = namespace[parsed.name]
    fn.__module__ = getattr(parsed.pyfunc, "__module__", None)
    # The user's name in what numba shows (its IR dumps, inspect_types, mangled names), but a
    # name of its own for numba's cache=True, which must never confuse it with the unchecked
    # function (numba's cache files are named by the qualified name).
    fn.__qualname__ = getattr(parsed.pyfunc, "__qualname__", parsed.name) + (
        "__safekern" if cache else "")
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


def _refresh_closure(parsed) -> None:
    """The closure's variables as they are now: one assigned after the function was defined
    (a function the kernel calls, defined below it in the enclosing function) was empty at
    decoration."""
    fn = parsed.pyfunc
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None)
    if code is None or not cells:
        return
    for name, cell in zip(code.co_freevars, cells):
        try:
            parsed.closure[name] = cell.cell_contents
        except ValueError:            # still empty
            pass


def _same_scope(a, b) -> bool:
    if len(a) != len(b):
        return False
    for (name_a, x), (name_b, y) in zip(a, b):
        if name_a != name_b or type(x) is not type(y):
            return False
        if x is not y and not (type(x) in _SCALAR_TYPES and x == y):
            return False
    return True


def _bind_parameters(parsed, params):
    """A copy of `parsed` without the parameters `params` names, which its closure binds."""
    names = {name for name, _ in params}
    tree = copy.deepcopy(parsed.tree)
    args = tree.args
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    kept = [(a, d) for a, d in zip(args.args, defaults) if a.arg not in names]
    args.args = [a for a, _ in kept]
    args.defaults = [d for _, d in kept if d is not None]
    closure = dict(parsed.closure)
    closure.update(params)
    return dataclasses.replace(parsed, tree=tree, closure=closure)


class _CheckedFunction(DispatcherSurface):
    """What kernels and device functions share: source, rewrite, lazily built numba function.

    `parsed` is given for functions made from another one's parse (a kernel called as a device
    function, a specialisation); `specialized`: compiled for its one signature only.
    """

    device = False
    _building = False

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False):
        self.py_func = pyfunc
        # inspect.getsource(kernel), inspect.signature(kernel) and functools' helpers follow it.
        self.__wrapped__ = pyfunc
        self.__name__ = getattr(pyfunc, "__name__", "kernel")
        self.__qualname__ = getattr(pyfunc, "__qualname__", self.__name__)
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self.__module__ = getattr(pyfunc, "__module__", None)
        self._sigs = sigs
        self._options = options
        self._specialized = specialized
        self._lock = threading.RLock()
        self._numba = None
        self._waiting = []       # (namespace, name) of callers built while this one was
        self.parsed = parsed if parsed is not None else pyfront.parse_function(pyfunc)
        self._nparams = len(self.parsed.tree.args.args)
        # Rewrite now: an unsupported construct is an error at decoration time. (The kernel
        # cache may hold this rewrite from an earlier process: only successful ones are kept.)
        self._scope = _scope_snapshot(self.parsed)
        self.rewritten = numba_rewrites.rewrite(self, self._rewrite)
        self._final = None

    def _rewrite(self):
        # With debug=True numba raises a kernel's exceptions at the launch itself: leave raise,
        # assert and division to it (numba's messages, numba's place).
        rewritten = pyfront.rewrite_function(self.parsed, device=self.device,
                                             resolver=_resolver(),
                                             eliminate_checks=config.get().eliminate,
                                             kernel_exceptions=not self._options.get("debug"))
        TABLE.register_all(rewritten.failure_sites)
        return rewritten

    @property
    def has_barriers(self) -> bool:
        return self.rewritten.has_barriers

    def _final_rewrite(self):
        """The rewrite a build compiles (and the kernel cache keys on): the decoration's, or a
        new one if a name the function uses means something else now (a device function
        defined after this function, a global constant rebound)."""
        with self._lock:
            if self._final is None:
                _refresh_closure(self.parsed)
                if not _same_scope(_scope_snapshot(self.parsed), self._scope):
                    self.rewritten = self._rewrite()
                _warn_plain_calls(self.rewritten)
                self._final = self.rewritten
            return self._final

    def _build(self):
        with self._lock:
            if self._numba is not None:
                return self._numba
            if self._building:
                return None          # recursion (a callee calls back): bound once built
            self._building = True
            try:
                return self._build_now()
            finally:
                self._building = False

    def _build_now(self):
        rewritten = self._final_rewrite()
        if numba_rewrites.is_stored(rewritten):
            # A rewrite from the kernel cache has no line numbers: compile a fresh one.
            rewritten = numba_rewrites.fresh(self, rewritten, self._rewrite)
            self.rewritten = self._final = rewritten
        impls, late = {}, []
        for name, dev in rewritten.device_calls.items():
            impl = dev._build()
            if impl is None:
                late.append((name, dev))
            else:
                impls[name] = impl
        namespace = {}
        fn = _compile_rewritten(rewritten, impls, namespace,
                                cache=bool(self._options.get("cache")))
        for name, dev in late:
            dev._waiting.append((namespace, name))
        options = _supported_options(self._options)
        if options.get("extensions"):
            options["extensions"] = list(options["extensions"])   # the user's list stays theirs
        if self.device:
            options["device"] = True
        with numba_options.quiet_config_warnings(), numba_errors_in_user_terms():
            if self._sigs is not None and not SIMULATOR:
                sigs = [_with_hidden(s, self.device) for s in self._sigs]
                one = len(sigs) == 1 and (self._specialized or self.device)
                self._numba = cuda.jit(sigs[0] if one else sigs, **options)(fn)
            else:
                self._numba = cuda.jit(**options)(fn)
        if not self.device and not SIMULATOR:
            # A launch that compiles calls the kernel's own _compile_for_args (hooks see it).
            kernel = self
            self._numba._compile_for_args = lambda *a, **kw: kernel._compile_for_args(*a, **kw)
        if not self.device and not SIMULATOR and self._options.get("extensions"):
            # Decoration's extensions: applied to the user's arguments only.
            self._marks_hidden = True
            UserExtensions.installed(self._numba.extensions)
        # Its own calls (recursion) and callers built while it was being built call it now.
        namespace[self.parsed.name] = self._numba
        for waiting, name in self._waiting:
            waiting[name] = self._numba
        self._waiting.clear()
        return self._numba

    def bound(self, params: tuple) -> "CheckedDeviceFunction":
        """This function with parameters bound to functions ((name, function), ...): the
        parameters are gone, the names mean the functions (see numba_resolver)."""
        key = tuple((name, id(value)) for name, value in params)
        with self._lock:
            cache = self.__dict__.setdefault("_bound", {})
            hit = cache.get(key)
            if hit is None:
                parsed = _bind_parameters(self.parsed, params)
                hit = (CheckedDeviceFunction(self.py_func, None, self._options, parsed=parsed),
                       params)          # the functions are held: their ids stay theirs
                cache[key] = hit
            return hit[0]

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

    def __reduce__(self):
        # As numba pickles its dispatcher: the function and options, decorated again there.
        from .pickling import reduce_function

        return reduce_function(self.py_func, self._sigs, self._options, self.device,
                               self._specialized)

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
        # What numba's device function does when called on the host: the simulator runs the
        # function there (unchecked, as numba's does); a GPU dispatcher refuses with its message.
        return self._host_dispatcher()(*args)

    def __getitem__(self, launch_config):
        return self._host_dispatcher()[launch_config]

    @property
    def _numba_type_(self):
        # What numba's typeof gives for this function where numba's own code refers to it
        # (numba's vectorize, cuda.compile or declare_device of a plain function, a plain
        # numba kernel): numba's own dispatcher of the user's function (rewritten callers
        # call the checked build by another name, see numba_resolver).
        return self._plain_dispatcher()._numba_type_

    def _plain_dispatcher(self):
        with self._lock:
            plain = self.__dict__.get("_plain")
            if plain is None:
                plain = self.__dict__["_plain"] = plain_build(
                    self, _supported_options(self._options), SIMULATOR)
            return plain

    def _host_dispatcher(self):
        if not SIMULATOR:
            return self._build()
        host = self.__dict__.get("_host")
        if host is None:
            host = self.__dict__["_host"] = cuda.jit(device=True)(self.py_func)
        return host


class CheckedKernel(_CheckedFunction):
    _binary = None       # numba_binary.BinaryLauncher: cached cubins, launched directly
    _races = None        # race_check.RaceChecker, for kernels that write an array parameter

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False):
        super().__init__(pyfunc, sigs, options, parsed, specialized)
        if config.get().races != "off":
            from .races import RaceChecker
            from ...frontend.python.races import analyse_kernel

            checker = RaceChecker(analyse_kernel(self.parsed, _resolver()),
                                  kernel=self.__name__, filename=self.parsed.filename)
            self._races = checker if checker.needed else None
        # A kernel with *args takes the buffer first (python.hidden_first): numba launches it.
        self._hidden_first = pyfront.hidden_first(self.parsed.tree.args, device=False)
        if not SIMULATOR and not self._hidden_first:
            from .binary import BinaryLauncher

            self._binary = BinaryLauncher(self)
        if sigs is not None and (SIMULATOR or cuda.is_available()):
            # Eager, like numba (from the kernel cache when it has every signature); without a
            # GPU, deferred (PTX still works).
            if self._binary is None or not self._binary.prepare_signatures():
                self._build()

    def __getitem__(self, launch_config):
        validate_launch_config(launch_config)
        numba_options.occupancy_warning(launch_config[0])
        return _Launch(self, launch_config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        validate_forall(ntasks)
        return _ForAll(self, ntasks, tpb, stream, sharedmem)

    def _with_buffer(self, args: tuple, buffer) -> tuple:
        if self._marks_hidden:
            buffer = HiddenArgument(buffer)
        return (buffer,) + args if self._hidden_first else args + (buffer,)

    def device_function(self) -> "CheckedDeviceFunction":
        """This kernel as a device function (a kernel calling it compiles it as one, as numba
        does); its accesses are checked and reported under its name."""
        with self._lock:
            dev = self.__dict__.get("_device_function")
            if dev is None:
                options = {k: v for k, v in self._options.items() if k != "link"}
                dev = CheckedDeviceFunction(self.py_func, None, options, parsed=self.parsed)
                self.__dict__["_device_function"] = dev
            return dev

    def __call__(self, *args, **kwargs):
        # numba's own message for a kernel launched without a configuration.
        return self._build()(*args, **kwargs)

    def _compile_for_args(self, *args, **kws):
        """numba's dispatcher calls this when a launch needs a compile (its launch
        configuration current: numba.cuda.launchconfig); a hook on it sees each one."""
        assert not kws
        return compile_for_args(self, args)

    def mark_launch_config_sensitive(self):
        mark_launch_config_sensitive(self)


class _Launch(LaunchConfigSurface):
    """`kernel[griddim, blockdim(, stream(, sharedmem))]` (numba_launch: what it shows numba
    and the user). `pre_launch_callbacks`: callables of (kernel, launch config) run just before
    each launch; such a launch is numba's own, which calls them."""

    __slots__ = ("kernel", "config", "pre_launch_callbacks", "_normalised",
                 "_kernel_launch_config_sensitive")

    def __init__(self, kernel, config):
        self.kernel = kernel
        self.config = config
        self.pre_launch_callbacks = []
        self._normalised = None
        self._kernel_launch_config_sensitive = None

    def __call__(self, *args):
        args = self.kernel._arguments(args)
        _launched[self.kernel] = None
        races = self.kernel._races
        # Before anything runs, so a proven race writes nothing.
        if races is not None and isinstance(self.config, tuple) and len(self.config) >= 2:
            races.check(args, self.config[0], self.config[1])
        binary = self.kernel._binary
        # Pre-launch callbacks and hooks on numba's compile take numba's launch (which runs
        # them), as do launches the short path declines.
        if binary is not None and not self.pre_launch_callbacks and \
                "_compile_for_args" not in self.kernel.__dict__ and \
                binary.launch(self.config, args):
            return
        numba_kernel = self.kernel._numba or self.kernel._build()
        source = current_source()
        if SIMULATOR:
            launch = numba_kernel[self.config]
            for callback in self.pre_launch_callbacks:     # the simulator's launch has none
                callback(numba_kernel, self)
        else:
            def launch(*full_args):
                # numba's dispatcher launches with this object as its configuration.
                numba_kernel.call(full_args, self)
        try:
            _launch_through_numba(source, args, launch,
                                  self.kernel._with_buffer(args, source.argument))
        except TypeError as err:
            if not SIMULATOR and str(err).startswith("Ambiguous overloading"):
                self.kernel._explain_ambiguous(args)      # raises numba's, in user's terms
            raise


def _launch_through_numba(source, args, launch, launch_args) -> None:
    """numba's own launch of a checked kernel, then safekern's after-launch steps."""
    with numba_errors_in_user_terms():
        _launch_numba(source, launch, launch_args)
    runtime.after_launch(source)
    if numba_sync.has_host_arrays(args):
        numba_sync.host_arrays_copied_back()


def _launch_numba(source, launch, launch_args) -> None:
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


class _ForAll:
    def __init__(self, kernel, ntasks, tpb, stream, sharedmem):
        self.kernel, self.args = kernel, (ntasks, tpb, stream, sharedmem)

    def __call__(self, *args):
        args = self.kernel._arguments(args)
        _launched[self.kernel] = None
        binary = self.kernel._binary
        if binary is not None and binary.forall(*self.args, args):
            return
        numba_kernel = self.kernel._numba or self.kernel._build()
        source = current_source()
        _launch_through_numba(source, args, numba_kernel.forall(*self.args),
                              self.kernel._with_buffer(args, source.argument))


# -- which kernel called the device function that failed -------------------------------------

# Kernels launched since the last check, in launch order (a failure inside a device function
# names the launched kernels that call it).
_launched: dict = {}


def _callers_of(err, kernels) -> tuple:
    """Names of the kernels among `kernels` that call (through any depth of device functions)
    the device function holding the failing access of `err`."""
    def holds(fn) -> bool:
        tree = fn.parsed.tree
        return (fn.__name__ == err.kernel and fn.parsed.filename == err.filename
                and err.lineno is not None
                and tree.lineno <= err.lineno <= (tree.end_lineno or tree.lineno))

    callers = []
    for kernel in kernels:
        if holds(kernel):
            continue                    # the access is in the kernel itself
        seen, todo = set(), list(kernel.rewritten.device_calls.values())
        while todo:
            fn = todo.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            if holds(fn):
                if kernel.__name__ not in callers:
                    callers.append(kernel.__name__)
                break
            todo += list(getattr(fn.rewritten, "device_calls", {}).values())
    return tuple(callers)


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

    def check(self, *, synchronize: bool = True):
        err = super().check(synchronize=synchronize)
        kernels = list(_launched)
        _launched.clear()
        if err is not None and getattr(err, "kernel", None):
            callers = _callers_of(err, kernels)
            if callers:
                err.called_from = callers
        return err

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


def _is_numba_dispatcher(fn) -> bool:
    from numba.cuda.dispatcher import CUDADispatcher

    return isinstance(fn, CUDADispatcher) and callable(getattr(fn, "py_func", None))


def jit(func_or_sig=None, device=False, **options):
    """`numba.cuda.jit` with every indexed access checked (see module doc)."""
    if not config.get().checks:
        return cuda.jit(func_or_sig, device=device, **options)
    if options.get("boundscheck"):
        options.pop("boundscheck")     # safekern's checks replace numba's CPU-only ones
    # numba's errors and warnings for the options, where numba gives them: at this call.
    numba_options.check_options(device, options)
    cls = CheckedDeviceFunction if device else CheckedKernel
    numba_sync.install()

    def decorate(fn, sigs=None, specialized=False):
        # A function jitted already is compiled anew from its Python function, as numba does.
        if isinstance(fn, (_CheckedFunction, UncheckedFunction)) or _is_numba_dispatcher(fn):
            fn = fn.py_func
        try:
            return cls(fn, sigs, options, specialized=specialized)
        except pyfront.SourceNotFound as err:
            # Nothing to rewrite (built by exec, typed at a prompt): numba's own, unchecked.
            return unchecked(fn, sigs, options, device, err.reason, specialized)

    if func_or_sig is None:
        return decorate
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, list, tuple)):
        return decorate(func_or_sig)
    # One signature (not in a list) specialises the kernel, as numba's does.
    specialized = not isinstance(func_or_sig, list)
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return lambda fn: decorate(fn, sigs, specialized)


__all__ = ["jit", "CheckedKernel", "CheckedDeviceFunction", "current_source"]
