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
from .compiles import NumbaCompiles
from .configured import compile_for_args, mark_launch_config_sensitive
from .device import current_source
from .device_function import CheckedDeviceFunction
from .dispatch import LaunchDispatch
from .function import CheckedFunction
from .launch import BinaryLauncher
from .launching import ForAll, Launch, launch_through_numba
from .plain import COMPILE_ERRORS, PlainBuild
from .surface import SIMULATOR, HiddenArgument, UserExtensions


class CheckedKernel(NumbaCompiles, CheckedFunction):
    _binary = None       # launch.BinaryLauncher: cached cubins, launched directly
    _checked = True      # its launches may record failures (not numba's own kernel)
    #: The launch dispatcher (dispatch.py) of a kernel the user holds; None for the other forms
    #: of one (a launch variant, numba's own kernel), which `main` names.
    dispatch = None
    main = None

    def __init__(self, pyfunc, sigs, options, parsed=None, specialized=False, build=None):
        super().__init__(pyfunc, sigs, options, parsed, specialized, build)
        if not SIMULATOR and not self._hidden_first:
            self._binary = BinaryLauncher(self._numba_build)
        if build is None:
            self.dispatch = LaunchDispatch(
                self, self._numba_build, self.__dict__, make_kernel=self._form,
                make_plain=lambda: PlainKernel(self), hidden_first=self._hidden_first,
                nparams=self._nparams)
            # kernel.select(args, config): what a launch runs (dispatch.py).
            self.select = self.dispatch.select
        if sigs is not None and (SIMULATOR or cuda.is_available()):
            # Eager, like numba (from the kernel cache when it has every signature); without a
            # GPU, deferred (PTX still works). A kernel with no check compiles what its
            # launches run while nothing is pending: numba's own kernel (plain.py).
            eager_plain = build is None and self.dispatch.eager_plain()
            if not eager_plain and (self._binary is None or
                                    not self._binary.prepare_signatures()):
                self._build()

    def __safekern_device_function__(self):
        return self.device_function()

    _hooks = True
    _hooked = None            # the numba dispatcher the kernel's hooks are on

    def _build(self):
        """numba's dispatcher of the kernel (its Build builds it), with the kernel's hooks on
        it: a launch numba compiles calls the kernel's own _compile_for_args (a hook the user
        sets on the kernel sees it), and decoration's extensions apply to the user's
        arguments only."""
        numba = self._numba_build.dispatcher()
        if numba is not None and self._hooked is not numba and self._hooks and not SIMULATOR:
            self._hooked = numba
            kernel = self
            numba._compile_for_args = lambda *a, **kw: kernel._compile_for_args(*a, **kw)
            if self._options.get("extensions"):
                self._mark_hidden()
                UserExtensions.installed(numba.extensions)
        return numba

    def _form(self, build) -> "CheckedKernel":
        """Another form of this kernel (a launch variant): `build` compiled."""
        form = CheckedKernel(self.py_func, self._sigs, self._options, parsed=self.parsed,
                             specialized=self._specialized, build=build)
        form.main = self
        return form

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
        numba_kernel = self._numba_build.numba
        if numba_kernel is None or (self._hooked is not numba_kernel and not SIMULATOR):
            numba_kernel = self._build()
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
                                 checked=self._checked, debug=bool(self._options.get("debug")))
        except TypeError as err:
            if not SIMULATOR and str(err).startswith("Ambiguous overloading"):
                self._explain_ambiguous(args)      # raises numba's, in user's terms
            raise

    def forall_launch(self, forall: tuple, args: tuple) -> None:
        """`kernel.forall(*forall)(*args)` of this form (as numba's ForAll launches)."""
        binary = self._binary
        if binary is not None and binary.forall(*forall, args):
            return
        numba_kernel = self._build()
        source = current_source()
        launch_through_numba(source, args, numba_kernel.forall(*forall),
                             self._with_buffer(args, source.argument), checked=self._checked,
                             debug=bool(self._options.get("debug")))

    def _numba_path_only(self) -> None:
        self._binary = None
        if self.dispatch is not None:
            self.dispatch.numba_only()      # one kernel the extensions apply to

    def _mark_hidden(self) -> None:
        self._marks_hidden = True
        if self.dispatch is not None:
            self.dispatch.marks_hidden = True

    # -- numba's answers for the launches that ran numba's own kernel --------------------------
    def _compiled(self):
        dispatcher = super()._compiled()
        plain = self.dispatch.plain_made if self.dispatch is not None else None
        if plain is not None:            # launches that ran numba's own kernel
            for argtypes in plain.launched_user_types():
                self._ensure_launched(dispatcher, self._full(argtypes))
        return dispatcher

    def _by_signature(self, method: str, signature=None, **kw):
        if self.dispatch is None:
            return super()._by_signature(method, signature, **kw)
        if signature is not None:
            full = self._full(signature)
            target = self.dispatch.inspected(self._user(getattr(full, "args", full)))
            if target is not None:
                return target._by_signature(method, signature, **kw)
            return super()._by_signature(method, signature, **kw)
        answer = super()._by_signature(method, None, **kw)
        if isinstance(answer, dict):
            plain_answer = None
            for user in list(answer):
                target = self.dispatch.inspected(tuple(user))
                if target is not None:
                    if plain_answer is None:
                        plain_answer = target._by_signature(method, None, **kw)
                    answer[user] = plain_answer.get(user, answer[user])
        return answer

    def __getitem__(self, launch_config):
        return Launch(self, launch_config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
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
    (the checked kernel's dispatcher asks it: `dispatch.inspected`); reports and
    device-function use are the checked kernel's."""

    _checked = False

    def __init__(self, main: CheckedKernel):
        self.main = main
        super().__init__(main.py_func, main._sigs, main._options, parsed=main.parsed,
                         specialized=main._specialized,
                         build=PlainBuild(main._numba_build))

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

    def launched_user_types(self) -> list:
        """The argument type tuples its launches ran (it has no hidden argument)."""
        return [tuple(getattr(t, "args", t)) for t in self._launched_types()]

    def _full(self, signature):
        if isinstance(signature, str):
            from numba.cuda.core.sigutils import normalize_signature

            return tuple(normalize_signature(signature)[0])
        return signature if hasattr(signature, "args") else tuple(signature)

    def _user(self, full_args) -> tuple:
        return tuple(full_args)

    def _with_buffer(self, args: tuple, buffer) -> tuple:
        return args

    def check_report(self) -> CheckReport:
        return self.main.check_report()

    def device_function(self):
        return self.main.device_function()

    def __repr__(self):
        return f"<safekern plain kernel {self.__qualname__!r} (numba's own: nothing to check)>"


__all__ = ["CheckedKernel", "CheckedDeviceFunction", "PlainKernel"]
