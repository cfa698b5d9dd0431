"""What checked numba kernels and device functions share: what `safekern.jit` returns (jit.py)
is a CheckedKernel (kernel.py) or a CheckedDeviceFunction (device_function.py), both a
`CheckedFunction`.

A checked function checks its source at decoration (so unsupported constructs fail there,
naming file:line), rewrites it when first built or asked about, and keeps what building it
needs in its `build` (build.py's Build); numba's dispatcher is built from the rewritten
function on first use (`numba_dispatcher()`), or at once when signatures are given (as numba
compiles eagerly then). Everything numba's dispatcher answers by signature is answered in the
user's terms by the function's `surface` (surface.py), to which the numba-named methods below
delegate; any other public name is numba's dispatcher's.

Checked functions answer three protocols, so that the modules below need not know these
classes: `__safekern_key__(depth)` (keys.py: the function as cache-key material),
`__safekern_device_function__()` (resolver.py: what a call of it compiles) and
`__safekern_build__()` (build.py, dispatch.py: its Build, what a caller's build compiles).
"""
from __future__ import annotations

from ...frontend import python as pyfront
from ...report import CheckReport, ReportEntry
from .build import Build
from .pickling import reduce_function
from .surface import SIMULATOR, DispatcherSurface, hidden_types
from .unchecked import take_identity, unchecked


class CheckedFunction:
    """What kernels and device functions share: source, rewrite, lazily built numba function.

    `parsed` is given for functions made from another one's parse (a kernel called as a device
    function, a specialisation); `specialized`: compiled for its one signature only. `sigs` and
    `options` are the decoration's; `build` its Build; `surface` answers numba's questions.
    """

    device = False
    #: The launch dispatcher (dispatch.py) of a kernel the user holds; None for device functions
    #: and for the other forms of a kernel.
    dispatch = None

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False, build=None):
        take_identity(self, pyfunc)
        self.sigs = sigs
        self.options = options
        self._specialized = specialized
        self._specializations = {}
        # Parsed and checked now: an unsupported construct is an error at decoration time.
        self.build = build or Build(parsed, name=self.__qualname__, py_func=pyfunc,
                                    device=self.device, options=options, sigs=sigs,
                                    specialized=specialized)
        self.parsed = self.build.parsed

    _surface = None

    @property
    def surface(self) -> DispatcherSurface:
        """What answers numba's dispatcher questions about this function (surface.py), made
        when the first is asked (a launch asks none)."""
        surface = self._surface
        if surface is None:
            surface = self._surface = self.make_surface()
        return surface

    def make_surface(self) -> DispatcherSurface:
        chain = self.device and self.build.final_rewrite().call_chain
        return DispatcherSurface(self.numba_dispatcher, hidden=hidden_types(self.device, chain),
                                 device=self.device)

    # -- what the Build holds ---------------------------------------------------------------
    @property
    def rewritten(self):
        return self.build.rewritten

    @property
    def has_barriers(self) -> bool:
        return self.rewritten.has_barriers

    @property
    def rewritten_source(self) -> str:
        return self.rewritten.source

    # -- the protocols of the modules below -----------------------------------------------------
    def __safekern_key__(self, depth: int = 0) -> dict:
        return self.build.__safekern_key__(depth)

    def __safekern_device_function__(self):
        return self

    def __safekern_build__(self):
        """Its Build (build.py): what a caller's build compiles for a call of it."""
        return self.build

    # -- building ---------------------------------------------------------------------------
    def numba_dispatcher(self):
        """numba's dispatcher of the checked function (its Build builds it, and the checked
        functions it calls first: build.py); None while it is being built (recursion)."""
        return self.build.dispatcher()

    def specialised(self, param_facts: tuple):
        """This device function for callers whose arguments `param_facts` describe
        (frontend/python/call_facts.py), or itself where they prove nothing more."""
        from .specialise import specialised
        return specialised(self, param_facts)

    def compile_ptx(self, signature, cc=(9, 0), **options):
        """PTX of the checked kernel for `signature` (user's types) and compute capability `cc`.

        Works without a GPU, as numba.cuda.compile_ptx does.
        """
        if SIMULATOR:
            raise RuntimeError("PTX cannot be generated under the CUDA simulator")
        self.numba_dispatcher()
        impls = {n: d.numba_dispatcher() for n, d in self.rewritten.device_calls.items()}
        return self.build.ptx(impls, signature, cc, **options)

    # -- the report ---------------------------------------------------------------------------
    def check_report(self) -> CheckReport:
        """Every check site in this function and in the checked device functions it calls, at
        any depth, each once (accesses, asserts, raises, divisions; a kernel's race verdicts
        too): where it is, what it checks, and whether a check runs."""
        p = self.parsed
        entries = self.own_report_entries()
        races = self.dispatch.races if self.dispatch is not None else None
        if races is not None:
            entries += races.report(p.shown_name)
        # The device functions' sites run in this kernel too (each once, over the callee's
        # specialisations for their call sites: specialise.py).
        from .specialise import callee_entries
        entries += callee_entries(self)
        return CheckReport(entries, filename=p.filename)

    def own_report_entries(self) -> list:
        """The report entries of this function's own sites (not its callees')."""
        p = self.parsed
        return [ReportEntry(p.shown_name, s.lineno, s.col, s.text, s.array, s.status, s.reason,
                            kind=s.kind, code=s.code, predicate=s.predicate,
                            filename=p.filename)
                for s in self.rewritten.sites]

    # -- numba's dispatcher's surface, in the user's terms (surface.py) -------------------------
    def inspect_llvm(self, signature=None):
        return self.surface.ask("inspect_llvm", signature)

    def inspect_asm(self, signature=None):
        return self.surface.ask("inspect_asm", signature)

    def inspect_lto_ptx(self, signature=None):
        return self.surface.ask("inspect_lto_ptx", signature)

    def inspect_sass(self, signature=None):
        return self.surface.ask("inspect_sass", signature)

    def inspect_sass_cfg(self, signature=None):
        return self.surface.ask("inspect_sass_cfg", signature)

    def get_metadata(self, signature=None):
        return self.surface.ask("get_metadata", signature)

    def get_regs_per_thread(self, signature=None):
        return self.surface.ask("get_regs_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        return self.surface.ask("get_const_mem_size", signature)

    def get_shared_mem_per_block(self, signature=None):
        return self.surface.ask("get_shared_mem_per_block", signature)

    def get_max_threads_per_block(self, signature=None):
        return self.surface.ask("get_max_threads_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self.surface.ask("get_local_mem_per_thread", signature)

    def inspect_types(self, file=None):
        return self.surface.inspect_types(self.overloads, file=file)

    def compile(self, sig):
        return self.surface.compile(sig)

    def compile_device(self, args, return_type=None):
        return self.surface.compile_device(args, return_type)

    @property
    def overloads(self) -> dict:
        """The compiled kernels, keyed by the user's argument types."""
        return self.surface.overloads()

    @property
    def signatures(self) -> list:
        return list(self.overloads)

    @property
    def targetoptions(self) -> dict:
        return dict(self.numba_dispatcher().targetoptions)

    @property
    def lineinfo(self) -> bool:
        return bool(self.options.get("lineinfo", False))

    @property
    def specialized(self) -> bool:
        return self._specialized

    def specialize(self, *args):
        """A kernel compiled for the types of `args` only, as numba's `specialize` makes."""
        if SIMULATOR:
            return self            # the simulator's dispatcher does the same
        from numba import cuda
        from numba.cuda.typing.typeof import Purpose, typeof

        cc = cuda.get_current_device().compute_capability
        argtypes = tuple(typeof(a, Purpose.argument) for a in args)
        if self.specialized:
            raise RuntimeError("Dispatcher already specialized")
        with self.build.lock:
            spec = self._specializations.get((cc, argtypes))
            if spec is None:
                spec = type(self)(self.py_func, [argtypes], self.options, parsed=self.parsed,
                                  specialized=True)
                self._specializations[(cc, argtypes)] = spec
            return spec

    @property
    def specializations(self) -> dict:
        return dict(self._specializations)

    # -- pickling, as numba's dispatcher (pickling.py) -----------------------------------------
    def __reduce__(self):
        # As numba pickles its dispatcher: the function and options, decorated again there.
        return reduce_function(type(self), self.py_func, self.sigs, self.options, self.device,
                               self._specialized)

    @classmethod
    def _rebuild(cls, pyfunc, sigs, options, device, specialized):
        """Unpickled (numba's serialize protocol): decorated anew; numba's own, unchecked,
        without a source."""
        try:
            return cls(pyfunc, sigs, dict(options), specialized=specialized)
        except pyfront.SourceNotFound as err:
            return unchecked(pyfunc, sigs, dict(options), device, err.reason, specialized,
                             rebuild_as=cls)

    def __getattr__(self, name):
        # Every other public name (extensions, nopython_signatures, ...) is numba's dispatcher's.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.numba_dispatcher(), name)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<safekern checked {kind} {self.__qualname__!r}>"


__all__ = ["CheckedFunction"]
