"""Checked numba kernels: what `safekern.jit` returns for a kernel (jit.py).

A CheckedKernel is a CheckedFunction (function.py) that launches. `kernel[config](*args)` is a
configured launch (launching.py) that asks the kernel's dispatcher what to launch --
`kernel.select(args, config)`, dispatch.py: race check, launch variant, plain launch -- and
launches that form (`form.launch`): on a real GPU its `BinaryLauncher` first (launch.py: the
cubin for the arguments' types from the kernel cache, or compiled by numba's dispatcher and
stored, launched without numba's typing or dispatch; a warm start creates no numba dispatcher at
all), else numba's dispatcher with the context's failure buffer (device.py). Kernels that need
numba's own launch (debug=True, NRT, ...) always go through the dispatcher. The forms of a
kernel are CheckedKernels too: its launch variants (predicates.py) and `PlainKernel`, numba's
own kernel of the function (plain.py).
"""
from __future__ import annotations

from numba import cuda

from ...report import CheckReport
from .compiles import Compiles
from .configured import compile_for_args, mark_launch_config_sensitive
from .device import current_source
from .device_function import CheckedDeviceFunction
from .dispatch import LaunchDispatch
from .function import CheckedFunction
from .launch import BinaryLauncher
from .launching import ForAll, Launch, launch_through_numba
from .plain import COMPILE_ERRORS, PlainBuild
from .surface import SIMULATOR, DispatcherSurface, HiddenArgument, UserExtensions, hidden_types


class CheckedKernel(CheckedFunction):
    """A checked kernel (see the module doc). It has a launch dispatcher (`dispatch`), a
    surface for numba's questions (`surface`, function.py) and the record of its compiles
    (`compiles`, compiles.py: stats, signatures, recompile)."""

    _binary = None       # launch.BinaryLauncher: cached cubins, launched directly
    _checked = True      # its launches may record failures (not numba's own kernel)
    _marks_hidden = False     # launches pass HiddenArgument (the kernel has extensions)
    _device_function = None   # this kernel as a device function, once a kernel called it
    #: The kernel the user holds, for the other forms of one (a launch variant, numba's own).
    main = None

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False, build=None):
        super().__init__(pyfunc, sigs, options, parsed, specialized, build)
        self._nparams = len(self.parsed.tree.args.args)
        # A kernel with *args takes the buffer first (numba launches it).
        self._hidden_first = self.build.hidden_first
        if not SIMULATOR and not self._hidden_first:
            self._binary = BinaryLauncher(self.build)
        if build is None:
            self.dispatch = LaunchDispatch(
                self, self.build, self.__dict__, make_kernel=self._form,
                make_plain=lambda: PlainKernel(self), hidden_first=self._hidden_first,
                nparams=self._nparams)
            # kernel.select(args, config): what a launch runs (dispatch.py).
            self.select = self.dispatch.select
        if sigs is not None and (SIMULATOR or cuda.is_available()):
            # Eager, like numba (from the kernel cache when it has every signature); without a
            # GPU, deferred (PTX still works). A kernel compiles what its launches run: with
            # no check, numba's own kernel while nothing is pending (plain.py); with launch
            # variants, the one where every predicate holds (dispatch.eager_variant), the
            # checked kernel when a launch or a question of numba's first needs it.
            def compile_checked():
                if self._binary is None or not self._binary.prepare_signatures():
                    self.numba_dispatcher()

            if build is not None or not (self.dispatch.eager_plain() or
                                         self.dispatch.eager_variant(compile_checked)):
                compile_checked()

    def make_surface(self) -> DispatcherSurface:
        return DispatcherSurface(self.numba_dispatcher, hidden=hidden_types(False),
                                 device=False, launched=self._question_types,
                                 route=self._route)

    _compiles = None

    @property
    def compiles(self) -> Compiles:
        """What numba's dispatcher says of the kernel's compiles (compiles.py), made when first
        asked."""
        compiles = self._compiles
        if compiles is None:
            compiles = self._compiles = Compiles(self)
        return compiles

    def __safekern_device_function__(self):
        return self.device_function()

    _hooks = True
    _hooked = None            # the numba dispatcher the kernel's hooks are on

    def numba_dispatcher(self):
        """numba's dispatcher of the kernel (its Build builds it), with the kernel's hooks on
        it: a launch numba compiles calls the kernel's own _compile_for_args (a hook the user
        sets on the kernel sees it), and decoration's extensions apply to the user's
        arguments only."""
        numba = self.build.dispatcher()
        if numba is not None and self._hooked is not numba and self._hooks and not SIMULATOR:
            self._hooked = numba
            kernel = self
            numba._compile_for_args = lambda *a, **kw: kernel._compile_for_args(*a, **kw)
            if self.options.get("extensions"):
                self._mark_hidden()
                UserExtensions.installed(numba.extensions)
        return numba

    def _form(self, build) -> "CheckedKernel":
        """Another form of this kernel (a launch variant): `build` compiled."""
        form = CheckedKernel(self.py_func, self.sigs, self.options, parsed=self.parsed,
                             specialized=self.specialized, build=build)
        form.main = self
        return form

    def forms(self) -> list:
        """This kernel and the forms of it made so far (launch variants, numba's own)."""
        return self.dispatch.forms() if self.dispatch is not None else [self]

    def launched_types(self) -> list:
        """The argument type tuples (hidden ones included) this form was compiled for."""
        binary = self._binary
        found = list(binary.compiled_types()) if binary is not None else []
        numba = self.build.numba
        if numba is not None and not SIMULATOR:
            found += [k for k in numba.overloads if k not in found]
        return found

    # -- launching the form the dispatcher selected --------------------------------------------
    def launch(self, args: tuple, launch, source=None) -> None:
        """`launch` (launching.Launch) of this form: the short path (launch.py) when it takes
        these arguments, else numba's own launch with the failure buffer. (`source`: the
        current context's failure source, if the selection looked it up.)"""
        binary = self._binary
        # Pre-launch callbacks and hooks on numba's compile take numba's launch (which runs
        # them), as do launches the short path declines.
        if binary is not None and not launch.callbacks and \
                "_compile_for_args" not in (self.main or self).__dict__ and \
                binary.launch(launch.config, args, source):
            return
        numba_kernel = self.build.numba
        if numba_kernel is None or (self._hooked is not numba_kernel and not SIMULATOR):
            numba_kernel = self.numba_dispatcher()
        source = current_source()
        if SIMULATOR:
            run = numba_kernel[launch.config]
            for callback in launch.callbacks or ():   # the simulator's launch has none
                callback(numba_kernel, launch)
        else:
            def run(*full_args):
                # numba's dispatcher launches with the configured launch as its configuration.
                numba_kernel.call(full_args, launch)
        try:
            launch_through_numba(source, args, run, self._with_buffer(args, source.argument),
                                 checked=self._checked, debug=bool(self.options.get("debug")))
        except TypeError as err:
            if not SIMULATOR and str(err).startswith("Ambiguous overloading"):
                self._explain_ambiguous(args)      # raises numba's, in user's terms
            raise

    def forall_launch(self, forall: tuple, args: tuple) -> None:
        """`kernel.forall(*forall)(*args)` of this form (as numba's ForAll launches)."""
        binary = self._binary
        if binary is not None and binary.forall(*forall, args):
            return
        numba_kernel = self.numba_dispatcher()
        source = current_source()
        launch_through_numba(source, args, numba_kernel.forall(*forall),
                             self._with_buffer(args, source.argument), checked=self._checked,
                             debug=bool(self.options.get("debug")))

    @property
    def extensions(self) -> list:
        """The kernel's extensions, as numba's list: what a user appends applies to later
        launches, which then take numba's launch path (the one that calls extensions: no
        short path, one kernel). numba hands every argument to them; the hidden one is kept
        from them (see surface.UserExtensions)."""
        self._binary = None
        if self.dispatch is not None:
            self.dispatch.numba_only()      # one kernel the extensions apply to
        numba_list = self.numba_dispatcher().extensions
        if SIMULATOR or numba_list is None:
            return numba_list
        self._mark_hidden()
        return UserExtensions.installed(numba_list).extensions

    def _mark_hidden(self) -> None:
        self._marks_hidden = True
        if self.dispatch is not None:
            self.dispatch.marks_hidden = True

    def _with_buffer(self, args: tuple, buffer) -> tuple:
        if self._marks_hidden:
            buffer = HiddenArgument(buffer)
        return (buffer,) + args if self._hidden_first else args + (buffer,)

    def forget_builds(self) -> None:
        """Every build of this kernel made anew on its next use, from the function's names as
        they are then (the rewrite too: it may have used a global's value): a recompile."""
        self.build.reset()
        self.surface.failed_types.clear()
        if self.dispatch is not None:
            self.dispatch.reset()
        if self._binary is not None:
            self._binary = BinaryLauncher(self.build)

    # -- numba's answers, for the launches that ran each form -----------------------------------
    def _question_types(self) -> list:
        """The full argument types numba's dispatcher needs overloads for before it answers:
        those the short path launched, and those the other forms' launches ran (a launch
        variant's or numba's own kernel's: numba's answers are for this kernel)."""
        binary = self._binary
        found = list(binary.compiled_types()) if binary is not None else []
        dispatch = self.dispatch
        if dispatch is not None:
            if dispatch.variants:
                for variant in dispatch.variants.kernels():
                    found += variant.launched_types()
            plain = dispatch.plain_made
            if plain is not None:            # launches that ran numba's own kernel
                found += [self.surface.full(t) for t in plain.launched_user_types()]
        return found

    def _route(self, user_types):
        """The surface of the form whose code numba's inspect_* describe for these argument
        types: numba's own kernel's when the launches ran it (dispatch.inspected), else None."""
        if self.dispatch is None:
            return None
        target = self.dispatch.inspected(user_types)
        return target.surface if target is not None else None

    @property
    def overloads(self) -> dict:
        """The compiled kernels, keyed by the user's argument types."""
        answer = self.surface.overloads()
        if SIMULATOR:
            return answer
        # A kernel that other kernels call is compiled as a device function too: numba keeps
        # those compilations in the same dispatcher, so its overloads show them as well.
        dev = self._device_function
        if dev is not None:
            for key, value in dev.device_compiles().items():
                answer.setdefault(key, value)
        return answer

    def _explain_ambiguous(self, args) -> None:
        """numba's TypeError for arguments that fit two signatures equally well (numba's
        dispatcher's name for it), in the user's terms."""
        self.surface.explain_ambiguous(self.py_func, args)

    # -- what numba's dispatcher says of its compiles (compiles.py) ----------------------------
    @property
    def stats(self):
        return self.compiles.stats()

    @property
    def signatures(self) -> list:
        return self.compiles.signatures()

    @property
    def _launch_config_specializations(self) -> dict:
        # (numba's dispatcher's attribute, which numba-cuda's own tests read)
        return self.compiles.launch_config_specializations()

    def recompile(self):
        """numba's `recompile()` (compiles.py)."""
        self.compiles.recompile()

    # -- launching ----------------------------------------------------------------------------
    def __getitem__(self, launch_config):
        return Launch(self, launch_config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def device_function(self) -> "CheckedDeviceFunction":
        """This kernel as a device function (a kernel calling it compiles it as one, as numba
        does); its accesses are checked and reported under its name."""
        with self.build.lock:
            dev = self._device_function
            if dev is None:
                options = {k: v for k, v in self.options.items() if k != "link"}
                dev = self._device_function = CheckedDeviceFunction(
                    self.py_func, None, options, parsed=self.parsed)
            return dev

    @property
    def device_function_made(self):
        """This kernel as a device function if a kernel called it, else None."""
        return self._device_function

    def __call__(self, *args, **kwargs):
        # numba's own message for a kernel launched without a configuration.
        return self.numba_dispatcher()(*args, **kwargs)

    def _compile_for_args(self, *args, **kws):
        """numba's dispatcher calls this when a launch needs a compile (its launch
        configuration current: numba.cuda.launchconfig); a hook on it sees each one."""
        assert not kws
        return compile_for_args(self.numba_dispatcher, self._nparams, args)

    def mark_launch_config_sensitive(self):
        mark_launch_config_sensitive(self, self.build.numba)


class PlainKernel(CheckedKernel):
    """numba's own kernel of a checked kernel's function (plain.py): its launches can record no
    failure and find nothing pending. It answers numba's questions for the launches that ran it
    (the checked kernel's dispatcher asks it: `dispatch.inspected`); reports and
    device-function use are the checked kernel's."""

    _checked = False

    def __init__(self, main: CheckedKernel):
        self.main = main
        super().__init__(main.py_func, main.sigs, main.options, parsed=main.parsed,
                         specialized=main.specialized, build=PlainBuild(main.build))

    _hooks = False            # numba's own kernel: numba's own compile, numba's extensions

    def launch(self, args: tuple, launch, source=None) -> None:
        # (Selected only without pre-launch callbacks and hooks on numba's compile: the short
        # path first, which never raises numba's compile errors.)
        binary = self._binary
        if binary is not None and binary.launch(launch.config, args, source):
            return
        try:
            CheckedKernel.launch(self, args, launch, source)
        except COMPILE_ERRORS as err:
            checked = self.main.dispatch.checked_for(args, launch.config)
            self._checked_instead(err, lambda: checked.launch(args, launch, None))

    def forall_launch(self, forall: tuple, args: tuple) -> None:
        try:
            CheckedKernel.forall_launch(self, forall, args)
        except COMPILE_ERRORS as err:
            self._checked_instead(err, lambda: self.main.forall_launch(forall, args))

    def _checked_instead(self, err, run_checked) -> None:
        """numba cannot compile the function as written (raised before anything ran): the
        checked kernel runs. If that compiles, numba's own cannot for a reason of safekern's
        making (recursion through checked functions with signatures): later launches run
        safekern's. If it does not either, the error is the user's: numba's words for it."""
        try:
            run_checked()
        except COMPILE_ERRORS:
            raise err from None
        self.main.dispatch.plain_failed(err)

    def make_surface(self) -> DispatcherSurface:
        # numba's own kernel has no hidden parameter: the user's signatures are its own.
        return DispatcherSurface(self.numba_dispatcher, hidden=(), device=False,
                                 launched=self._question_types)

    def launched_user_types(self) -> list:
        """The argument type tuples its launches ran (it has no hidden argument)."""
        return [tuple(getattr(t, "args", t)) for t in self.launched_types()]

    def _with_buffer(self, args: tuple, buffer) -> tuple:
        return args

    def check_report(self) -> CheckReport:
        return self.main.check_report()

    def device_function(self):
        return self.main.device_function()

    def __repr__(self):
        return f"<safekern plain kernel {self.__qualname__!r} (numba's own: nothing to check)>"


__all__ = ["CheckedKernel", "CheckedDeviceFunction", "PlainKernel"]
