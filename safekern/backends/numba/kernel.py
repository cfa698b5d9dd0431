"""Checked numba kernels and device functions: what `safekern.jit` returns (jit.py).

A checked function rewrites its source at decoration (so unsupported constructs fail there,
naming file:line) and keeps what building it needs in its `Build` (build.py); numba's dispatcher
is built from the rewritten function on first use, or at once when signatures are given (as
numba compiles eagerly then). Everything else numba's dispatcher answers is answered in the
user's terms (surface.py).

On a real GPU a kernel's launch first tries its `BinaryLauncher` (launch.py): the cubin for the
arguments' types from the kernel cache (or compiled by numba's dispatcher and stored), launched
without numba's typing or dispatch; a warm start creates no numba dispatcher at all. Kernels that
need numba's own launch (debug=True, NRT, ...) go through the dispatcher (launching.py), with the
context's failure buffer (device.py).

Checked functions answer two protocols, so that the modules below need not know these classes:
`__safekern_key__(depth)` (keys.py: the function as cache-key material) and
`__safekern_device_function__()` (resolver.py: what a call of it compiles).
"""
from __future__ import annotations

import copy
import dataclasses

from numba import cuda

from ... import config
from ...frontend import python as pyfront
from ...report import CheckReport, ReportEntry
from . import options as numba_options
from .build import Build, LaunchVariantBuild, compile_rewritten, supported_options
from .compiles import NumbaCompiles
from .configured import compile_for_args, mark_launch_config_sensitive
from .launch import BinaryLauncher
from .launching import ForAll, Launch
from .pickling import reduce_function
from .plain import PlainBuild, PlainLaunches, PlainUnavailable, check_free, plain_function
from .predicates import LaunchVariants
from .resolver import resolver as _resolver
from .surface import (SIMULATOR, DispatcherSurface, HiddenArgument, UserExtensions,
                      validate_forall, validate_launch_config)
from .unchecked import plain_build, unchecked


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

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False, build=None):
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
        self._waiting = []       # (namespace, name) of callers built while this one was
        self.parsed = parsed if parsed is not None else pyfront.parse_function(pyfunc)
        self._nparams = len(self.parsed.tree.args.args)
        # Rewritten now: an unsupported construct is an error at decoration time.
        self._numba_build = build or Build(self.parsed, name=self.__qualname__, py_func=pyfunc,
                                           device=self.device, options=options, sigs=sigs,
                                           specialized=specialized)
        self._numba_build.make = self._build

    # -- what the Build holds ---------------------------------------------------------------
    @property
    def rewritten(self):
        return self._numba_build.rewritten

    @property
    def _numba(self):
        return self._numba_build.numba

    @property
    def _lock(self):
        return self._numba_build.lock

    @property
    def has_barriers(self) -> bool:
        return self.rewritten.has_barriers

    def _final_rewrite(self):
        return self._numba_build.final_rewrite()

    # -- the protocols of the modules below -----------------------------------------------------
    def __safekern_key__(self, depth: int = 0) -> dict:
        return self._numba_build.__safekern_key__(depth)

    def __safekern_device_function__(self):
        return self

    # -- building ---------------------------------------------------------------------------
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
        build = self._numba_build
        rewritten = build.compilable_rewrite()
        impls, late = {}, []
        for name, dev in rewritten.device_calls.items():
            impl = dev._build()
            if impl is None:
                late.append((name, dev))
            else:
                impls[name] = impl
        namespace = {}
        fn = compile_rewritten(rewritten, impls, namespace)
        for name, dev in late:
            dev._waiting.append((namespace, name))
        numba = build.numba = build.jit(fn)
        if not self.device and not SIMULATOR:
            # A launch that compiles calls the kernel's own _compile_for_args (hooks see it).
            kernel = self
            numba._compile_for_args = lambda *a, **kw: kernel._compile_for_args(*a, **kw)
        if not self.device and not SIMULATOR and self._options.get("extensions"):
            # Decoration's extensions: applied to the user's arguments only.
            self._marks_hidden = True
            UserExtensions.installed(numba.extensions)
        # Its own calls (recursion) and callers built while it was being built call it now.
        namespace[self.parsed.name] = numba
        for waiting, name in self._waiting:
            waiting[name] = numba
        self._waiting.clear()
        return numba

    def bound(self, params: tuple) -> "CheckedDeviceFunction":
        """This function with parameters bound to functions ((name, function), ...): the
        parameters are gone, the names mean the functions (see resolver.py)."""
        key = tuple((name, id(value)) for name, value in params)
        with self._lock:
            cache = self.__dict__.setdefault("_bound", {})
            hit = cache.get(key)
            if hit is None:
                parsed = _bind_parameters(self.parsed, params)
                bound = CheckedDeviceFunction(self.py_func, None, self._options, parsed=parsed)
                bound.bound_from = self
                hit = (bound, params)   # the functions are held: their ids stay theirs
                cache[key] = hit
            return hit[0]

    def specialised(self, param_facts: tuple):
        """This device function for callers whose arguments `param_facts` describe
        (frontend/python/call_facts.py), or itself where they prove nothing more."""
        from .specialise import specialised
        return specialised(self, param_facts)

    def check_report(self) -> CheckReport:
        """Every check site in this function and in the checked device functions it calls, at
        any depth, each once (accesses, asserts, raises, divisions; a kernel's race verdicts
        too): where it is, what it checks, and whether a check runs."""
        p = self.parsed
        entries = self._own_entries()
        races = getattr(self, "_races", None)
        if races is not None:
            entries += races.report(p.shown_name)
        # The device functions' sites run in this kernel too (each once, over the callee's
        # specialisations for their call sites: specialise.py).
        from .specialise import callee_entries
        entries += callee_entries(self)
        return CheckReport(entries, filename=p.filename)

    def _own_entries(self) -> list:
        p = self.parsed
        return [ReportEntry(p.shown_name, s.lineno, s.col, s.text, s.array, s.status, s.reason,
                            kind=s.kind, code=s.code, predicate=s.predicate,
                            filename=p.filename)
                for s in self.rewritten.sites]

    def compile_ptx(self, signature, cc=(9, 0), **options):
        """PTX of the checked kernel for `signature` (user's types) and compute capability `cc`.

        Works without a GPU, as numba.cuda.compile_ptx does.
        """
        if SIMULATOR:
            raise RuntimeError("PTX cannot be generated under the CUDA simulator")
        self._build()
        impls = {n: d._build() for n, d in self.rewritten.device_calls.items()}
        return self._numba_build.ptx(impls, signature, cc, **options)

    @property
    def rewritten_source(self) -> str:
        return self.rewritten.source

    def __reduce__(self):
        # As numba pickles its dispatcher: the function and options, decorated again there.
        return reduce_function(type(self), self.py_func, self._sigs, self._options, self.device,
                               self._specialized)

    @classmethod
    def _rebuild(cls, pyfunc, sigs, options, device, specialized):
        """Unpickled (pickling.py): decorated anew; numba's own, unchecked, without a source."""
        try:
            return cls(pyfunc, sigs, dict(options), specialized=specialized)
        except pyfront.SourceNotFound as err:
            return unchecked(pyfunc, sigs, dict(options), device, err.reason, specialized,
                             rebuild_as=cls)

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
    bound_from = None      # the function this one specialises for function arguments (bound)
    specialised_from = None   # the function this one specialises for its arguments (specialise.py)

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
        # call the checked build by another name, see resolver.py).
        return self._plain_dispatcher()._numba_type_

    def _plain_dispatcher(self):
        with self._lock:
            plain = self.__dict__.get("_plain")
            if plain is None:
                if self.__dict__.get("_plain_making"):
                    raise PlainUnavailable(self.__qualname__)
                self.__dict__["_plain_making"] = True
                try:
                    plain = self._make_plain_dispatcher()
                finally:
                    self.__dict__.pop("_plain_making", None)
            return plain

    def _make_plain_dispatcher(self):
        # The safekern functions it calls are numba's own builds there too (swapped after this
        # one is known, so recursion finds it; with signatures numba compiles at once: before).
        # A check-free function loses nothing there: no warning.
        fn, swap = plain_function(self.py_func, deferred=True)
        eager = self._sigs is not None and not SIMULATOR
        if eager:
            swap()
        plain = self.__dict__["_plain"] = plain_build(
            fn, self.__qualname__, self._sigs, supported_options(self._options), SIMULATOR,
            warn=not check_free(self._final_rewrite()))
        if not eager:
            swap()
        return plain

    def _host_dispatcher(self):
        if not SIMULATOR:
            return self._build()
        host = self.__dict__.get("_host")
        if host is None:
            host = self.__dict__["_host"] = cuda.jit(device=True)(self.py_func)
        return host


class CheckedKernel(NumbaCompiles, PlainLaunches, _CheckedFunction):
    _binary = None       # launch.BinaryLauncher: cached cubins, launched directly
    _races = None        # races.RaceChecker, for kernels that write an array parameter
    _variant = None      # predicates.LaunchVariants; False: none; None: not looked at yet

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False, build=None):
        super().__init__(pyfunc, sigs, options, parsed, specialized, build)
        if config.get().races != "off" and build is None:
            from ...frontend.python.races import analyse_kernel
            from .races import RaceChecker

            checker = RaceChecker(analyse_kernel(self.parsed, _resolver()),
                                  kernel=self.__name__, filename=self.parsed.filename)
            self._races = checker if checker.needed else None
        # A kernel with *args takes the buffer first (python.hidden_first): numba launches it.
        self._hidden_first = pyfront.hidden_first(self.parsed.tree.args, device=False)
        if not SIMULATOR and not self._hidden_first:
            self._binary = BinaryLauncher(self._numba_build)
        if sigs is not None and (SIMULATOR or cuda.is_available()):
            # Eager, like numba (from the kernel cache when it has every signature); without a
            # GPU, deferred (PTX still works). A kernel with no check compiles what its
            # launches run while nothing is pending: numba's own kernel (plain.py).
            if not self._eager_plain(build) and (self._binary is None or
                                                 not self._binary.prepare_signatures()):
                self._build()

    def __safekern_device_function__(self):
        return self.device_function()

    def _for_launch(self, args, launch_config):
        """This kernel, or the launch variant without the checks that the launch predicates
        holding for these arguments and this configuration prove (frontend/python/launch.py,
        predicates.py)."""
        variants = self._variant
        if variants is None:
            variants = self._make_variant()
        if variants is False:
            return self
        return variants.for_launch(args, launch_config) or self

    def _make_variant(self):
        with self._lock:
            if self._variant is None:
                predicates = self._numba_build.final_rewrite().launch_predicates
                # (A hook on numba's compile sees the kernel's own compiles, extensions apply
                # to the kernel's own launches: no variant then.)
                if not predicates or "_compile_for_args" in self.__dict__ or \
                        self._options.get("extensions"):
                    self._variant = False
                else:
                    def make(subset):
                        return CheckedKernel(self.py_func, self._sigs, self._options,
                                             parsed=self.parsed, specialized=self._specialized,
                                             build=LaunchVariantBuild(self._numba_build, subset))
                    self._variant = LaunchVariants(predicates, make)
            return self._variant

    def __getitem__(self, launch_config):
        validate_launch_config(launch_config)
        numba_options.occupancy_warning(launch_config[0])
        return Launch(self, launch_config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        validate_forall(ntasks)
        return ForAll(self, ntasks, tpb, stream, sharedmem)

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
        return compile_for_args(self._build, self._nparams, args)

    def mark_launch_config_sensitive(self):
        mark_launch_config_sensitive(self, self._numba)


class PlainKernel(CheckedKernel):
    """numba's own kernel of a checked kernel's function (plain.py): its launches can record no
    failure and find nothing pending. It answers numba's questions for the launches that ran it
    (the checked kernel asks it: `_inspected`); reports and device-function use are the
    checked kernel's."""

    _checked = False

    def __init__(self, main: CheckedKernel):
        self.main = main
        super().__init__(main.py_func, main._sigs, main._options, parsed=main.parsed,
                         specialized=main._specialized,
                         build=PlainBuild(main._numba_build))

    def _build_now(self):
        numba = self._numba_build.numba = self._numba_build.jit_plain()
        return numba

    def _check_free(self) -> bool:
        return True

    def _plain_or(self, kernel):
        return kernel, None

    def _inspected(self, full_args):
        return self

    def _full(self, signature):
        if isinstance(signature, str):
            from numba.cuda.core.sigutils import normalize_signature

            return tuple(normalize_signature(signature)[0])
        return signature if hasattr(signature, "args") else tuple(signature)

    def _user(self, full_args) -> tuple:
        return tuple(full_args)

    def _with_buffer(self, args: tuple, buffer) -> tuple:
        return args

    def _for_launch(self, args, launch_config):
        return self

    def check_report(self) -> CheckReport:
        return self.main.check_report()

    def device_function(self):
        return self.main.device_function()

    def __repr__(self):
        return f"<safekern plain kernel {self.__qualname__!r} (numba's own: nothing to check)>"


CheckedKernel.plain_class = PlainKernel

__all__ = ["CheckedKernel", "CheckedDeviceFunction", "PlainKernel"]
