"""Launching a checked kernel: `kernel[griddim, blockdim, ...](*args)` and `forall`.

Which kernel a launch runs: the checked kernel, the launch variant its predicates choose
(predicates.py), or numba's own kernel of the function when that can record no failure and
nothing is pending (plain.py); then the short path (launch.py) or numba's own launch.
"""
from __future__ import annotations

from ... import runtime
from ...errors import SafekernError, for_user
from . import sync as numba_sync
from .configured import LaunchConfigSurface
from .device import current_source, launched as _launched
from .plain import COMPILE_ERRORS
from .surface import SIMULATOR, numba_errors_in_user_terms


class Launch(LaunchConfigSurface):
    """`kernel[griddim, blockdim(, stream(, sharedmem))]` (configured.py: what it shows numba
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
        __tracebackhide__ = True      # noqa: F841 - pytest and IPython hide this frame
        try:                          # free in CPython 3.11+ while nothing is raised
            main = self.kernel
            args = main._arguments(args)
            _launched[main] = None
            races = main._races
            # Before anything runs, so a proven race writes nothing.
            if races is not None and isinstance(self.config, tuple) and len(self.config) >= 2:
                races.check(args, self.config[0], self.config[1])
            kernel = main if main._variant is False else main._for_launch(args, self.config)
            if kernel._free is not False and not self.pre_launch_callbacks:
                plain, source = main._plain_or(kernel)
                if plain is not kernel:
                    return _plain_first(main, lambda: self._run(main, plain, args, source),
                                        lambda: self._run(main, kernel, args, None))
            self._run(main, kernel, args, None)
        except SafekernError as exc:
            raise for_user(exc)       # a launch's error (a race): the message says where

    def _run(self, main, kernel, args, source) -> None:
        binary = kernel._binary
        # Pre-launch callbacks and hooks on numba's compile take numba's launch (which runs
        # them), as do launches the short path declines.
        if binary is not None and not self.pre_launch_callbacks and \
                "_compile_for_args" not in main.__dict__ and \
                binary.launch(self.config, args, source):
            return
        numba_kernel = kernel._numba or kernel._build()
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
                                  kernel._with_buffer(args, source.argument),
                                  checked=kernel._checked, debug=bool(main._options.get("debug")))
        except TypeError as err:
            if not SIMULATOR and str(err).startswith("Ambiguous overloading"):
                main._explain_ambiguous(args)      # raises numba's, in user's terms
            raise


def _plain_first(main, run_plain, run_checked) -> None:
    """Launch numba's own kernel of `main`'s function; if numba cannot compile it (raised
    before anything ran), the checked kernel. If that compiles, numba's own cannot for a reason
    of safekern's making (recursion through checked functions with signatures): later launches
    run safekern's. If it does not either, the error is the user's: numba's words for it."""
    try:
        run_plain()
    except COMPILE_ERRORS as err:
        try:
            run_checked()
        except COMPILE_ERRORS:
            raise err from None
        main._plain_failed(err)


def _launch_through_numba(source, args, launch, launch_args, checked=True,
                          debug=False) -> None:
    """numba's own launch of a checked kernel, then safekern's after-launch steps (a kernel
    that can record no failure -- `checked` false -- leaves nothing to check). numba's launch
    of a debug=True kernel waits for it (it reads numba's exception flag back): a sync point,
    where what the kernel's checks recorded is raised too, as numba raises its exceptions."""
    with numba_errors_in_user_terms():
        _launch_numba(source, launch, launch_args)
    if checked:
        runtime.after_launch(source)
        if debug:
            runtime.sync_point(None if SIMULATOR else source.context)
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


class ForAll:
    def __init__(self, kernel, ntasks, tpb, stream, sharedmem):
        self.kernel, self.args = kernel, (ntasks, tpb, stream, sharedmem)

    def __call__(self, *args):
        main = self.kernel
        args = main._arguments(args)
        _launched[main] = None
        kernel = main._plain_or(main)[0] if main._free is not False else main
        if kernel is not main:
            return _plain_first(main, lambda: self._run(kernel, args),
                                lambda: self._run(main, args))
        self._run(main, args)

    def _run(self, kernel, args) -> None:
        binary = kernel._binary
        if binary is not None and binary.forall(*self.args, args):
            return
        numba_kernel = kernel._numba or kernel._build()
        source = current_source()
        _launch_through_numba(source, args, numba_kernel.forall(*self.args),
                              kernel._with_buffer(args, source.argument),
                              checked=kernel._checked,
                              debug=bool(kernel._options.get("debug")))


__all__ = ["Launch", "ForAll"]
