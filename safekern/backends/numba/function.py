"""What checked numba kernels and device functions share: what `safekern.jit` returns (jit.py)
is a CheckedKernel (kernel.py) or a CheckedDeviceFunction (device_function.py), both a
`CheckedFunction`.

A checked function rewrites its source at decoration (so unsupported constructs fail there,
naming file:line) and keeps what building it needs in its `Build` (build.py); numba's dispatcher
is built from the rewritten function on first use, or at once when signatures are given (as
numba compiles eagerly then). Everything else numba's dispatcher answers is answered in the
user's terms (surface.py).

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
from .surface import SIMULATOR, DispatcherSurface, UserExtensions
from .unchecked import take_identity, unchecked


class CheckedFunction(DispatcherSurface):
    """What kernels and device functions share: source, rewrite, lazily built numba function.

    `parsed` is given for functions made from another one's parse (a kernel called as a device
    function, a specialisation); `specialized`: compiled for its one signature only.
    """

    device = False

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False, build=None):
        take_identity(self, pyfunc)
        self._sigs = sigs
        self._options = options
        self._specialized = specialized
        # Parsed and rewritten now: an unsupported construct is an error at decoration time.
        self._numba_build = build or Build(parsed, name=self.__qualname__, py_func=pyfunc,
                                           device=self.device, options=options, sigs=sigs,
                                           specialized=specialized)
        self.parsed = self._numba_build.parsed
        self._nparams = len(self.parsed.tree.args.args)
        # A kernel with *args takes the buffer first (numba launches it).
        self._hidden_first = self._numba_build.hidden_first

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

    def __safekern_build__(self):
        """Its Build (build.py): what a caller's build compiles for a call of it."""
        return self._numba_build

    # -- building ---------------------------------------------------------------------------
    def _build(self):
        """numba's dispatcher of the checked function (its Build builds it, and the checked
        functions it calls first: build.py); None while it is being built (recursion)."""
        return self._numba_build.dispatcher()

    _marks_hidden = False      # launches pass HiddenArgument (the kernel has extensions)

    def _mark_hidden(self) -> None:
        self._marks_hidden = True

    @property
    def extensions(self) -> list:
        """The kernel's extensions, as numba's list: what a user appends applies to later
        launches, which then take numba's launch path (the one that calls extensions). numba
        hands every argument to them; the hidden one is kept from them (see UserExtensions)."""
        self._numba_path_only()
        numba_list = self._build().extensions
        if SIMULATOR or self.device or numba_list is None:
            return numba_list
        self._mark_hidden()
        return UserExtensions.installed(numba_list).extensions

    def _numba_path_only(self) -> None:
        """Launches take numba's own path (no short path, one kernel): a kernel's extensions."""

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
        dispatch = getattr(self, "dispatch", None)
        races = dispatch.races if dispatch is not None else None
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


__all__ = ["CheckedFunction"]
