"""Launching a checked kernel: `kernel[griddim, blockdim, ...](*args)` and `forall`.

numba-cuda's shape: `kernel[config]` is a configured launch (`Launch`, numba's
`_LaunchConfiguration`: what it shows numba's code and the user), its configuration checked
(numba's errors) and warned about (numba's low-occupancy warning) there, as numba's does; calling it asks the kernel's dispatcher what to launch
(`kernel.select(args, config)`, dispatch.py: race check -> launch variant -> plain launch) and
launches that form (`form.launch`, kernel.py: the short path of launch.py, else numba's own
launch, `launch_through_numba` here).
"""
from __future__ import annotations

import warnings

from numba.cuda.core import config as _numba_config

from ... import runtime
from ...errors import SafekernError, for_user
from ...memo import BoundedMemo
from . import sync as numba_sync
from .pickling import reduce_launch
from .surface import SIMULATOR, in_user_terms, is_numba_error, numba_errors_in_user_terms


class Launch:
    """`kernel[griddim, blockdim(, stream(, sharedmem))]`, numba's `_LaunchConfiguration`:
    `pre_launch_callbacks` are callables of (kernel, launch config) run just before each
    launch (such a launch is numba's own, which calls them).

    numba hands its launch configuration to code that runs while a launch compiles the kernel
    (`numba.cuda.launchconfig.current_launch_config()`: rewrites and hooks that specialise a
    kernel for its launch, as cuda.coop does) and to pre-launch callbacks. A checked kernel's
    launch that numba compiles or launches passes this object to numba's dispatcher
    (`CUDADispatcher.call(args, launch)`), so that code sees the user's kernel as `dispatcher`,
    the dimensions as numba normalises them, and the launch's arguments.
    """

    __slots__ = ("kernel", "config", "callbacks", "_normalised",
                 "_kernel_launch_config_sensitive")

    def __init__(self, kernel, config):
        validate_launch_config(config)
        occupancy_warning(config[0])
        self.kernel = kernel
        self.config = config
        self.callbacks = None         # the pre-launch callbacks, once asked for (numba's list)
        self._normalised = None
        self._kernel_launch_config_sensitive = None

    @property
    def pre_launch_callbacks(self) -> list:
        callbacks = self.callbacks
        if callbacks is None:
            callbacks = self.callbacks = []
        return callbacks

    @pre_launch_callbacks.setter
    def pre_launch_callbacks(self, callbacks) -> None:
        self.callbacks = callbacks

    def __call__(self, *args):
        __tracebackhide__ = True      # noqa: F841 - pytest and IPython hide this frame
        try:                          # free in CPython 3.11+ while nothing is raised
            form, user_args, source = self.kernel.select(args, self.config, self.callbacks)
            form.launch(user_args, self, source)
        except SafekernError as exc:
            raise for_user(exc)       # a launch's error (a race, a bad launch): its message
        except Exception as exc:      # noqa: BLE001 -- numba's compile error, in user terms
            if not is_numba_error(exc):
                raise
            raise for_user(in_user_terms(exc, lambda: plain_compile(self.kernel, args))) \
                from None

    # -- what numba's _LaunchConfiguration shows ----------------------------------------------
    @property
    def dispatcher(self):
        return self.kernel

    def _dims(self):
        dims = self._normalised
        if dims is None:
            from numba.cuda.errors import normalize_kernel_dimensions

            dims = self._normalised = normalize_kernel_dimensions(*self.config[:2])
        return dims

    @property
    def griddim(self):
        return self._dims()[0]

    @property
    def blockdim(self):
        return self._dims()[1]

    @property
    def stream(self):
        stream = self.config[2] if len(self.config) > 2 else 0
        if SIMULATOR:
            return stream
        from numba.cuda.cudadrv import driver

        return driver._to_core_stream(stream)

    @property
    def sharedmem(self):
        return self.config[3] if len(self.config) > 3 else 0

    # -- numba's protocol: the launch's arguments, thread-local while it runs ---------------------
    @property
    def args(self):
        from numba.cuda.cext import _dispatcher

        return _dispatcher.get_current_launch_args()

    def _push_args(self, args):
        from numba.cuda.cext import _dispatcher

        return _dispatcher.swap_current_launch_args(args)

    def _pop_args(self, prev):
        from numba.cuda.cext import _dispatcher

        _dispatcher.swap_current_launch_args(prev)

    def _is_kernel_launch_config_sensitive(self):
        """Whether the compilation under way was marked launch-configuration sensitive."""
        return bool(self._kernel_launch_config_sensitive)

    def __reduce__(self):
        return reduce_launch(self)


def plain_compile(kernel, args) -> None:
    """numba's own compile of the user's kernel for the types of `args` (its error, if any,
    is numba's for the user's code: surface.in_user_terms)."""
    from numba import cuda
    from numba.cuda.typing.typeof import Purpose, typeof

    from .build import supported_options

    options = supported_options(getattr(kernel, "options", {}) or {})
    options.pop("cache", None)
    plain = cuda.jit(**options)(kernel.py_func)
    plain.compile(tuple(typeof(a, Purpose.argument) for a in args))


def launch_through_numba(source, args, launch, launch_args, checked=True,
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
    """`kernel.forall(ntasks, tpb, stream, sharedmem)`: its dispatcher selects (no race check,
    no launch variant: a forall's geometry is numba's choice) and the form launches."""

    def __init__(self, kernel, ntasks, tpb, stream, sharedmem):
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        self.kernel, self.args = kernel, (ntasks, tpb, stream, sharedmem)

    def __call__(self, *args):
        form, args, _ = self.kernel.select(args, None)
        form.forall_launch(self.args, args)


# -- the configuration, checked and warned about as numba does ---------------------------------

_validated = BoundedMemo(1024)


def validate_launch_config(launch_config) -> None:
    """numba's checks of `kernel[griddim, blockdim(, stream(, sharedmem))]`, with its errors,
    at the subscript (as numba raises them), remembered per configuration."""
    try:
        if launch_config in _validated:
            return
        hashable = True
    except TypeError:                          # a list as a dimension
        hashable = False
    if not isinstance(launch_config, tuple) or len(launch_config) not in (2, 3, 4):
        raise ValueError("must specify at least the griddim and blockdim")
    from numba.cuda.errors import normalize_kernel_dimensions

    normalize_kernel_dimensions(*launch_config[:2])
    if hashable:
        _validated.put(launch_config, True)


_grid_sizes = BoundedMemo(1024)   # griddim as given -> blocks (a launch asks at every subscript)
_occupancy_warnings: dict = {}   # blocks -> the warning (under 128 blocks: at most 127)


def occupancy_warning(griddim) -> None:
    """numba's NumbaPerformanceWarning for a grid of fewer than 128 blocks (read from numba's
    config at each configuration, as numba does: tests and users switch it at run time)."""
    if not _numba_config.CUDA_LOW_OCCUPANCY_WARNINGS or \
            _numba_config.DISABLE_PERFORMANCE_WARNINGS or SIMULATOR:
        return
    try:
        size = _grid_sizes.get(griddim)
        hashable = True
    except TypeError:                          # a list as a dimension
        size, hashable = None, False
    if size is None:
        from numba.cuda.errors import normalize_kernel_dimensions

        dims, _ = normalize_kernel_dimensions(griddim, 1)
        size = dims[0] * dims[1] * dims[2]
        if hashable:
            _grid_sizes.put(griddim, size)
    if size < 128:
        from ..._stack import user_stacklevel

        warning = _occupancy_warnings.get(size)
        if warning is None:
            # Made once per grid size: numba's warning highlights its text when made (colorama),
            # which costs more than the launch itself.
            from numba.cuda.core.errors import NumbaPerformanceWarning

            warning = _occupancy_warnings[size] = NumbaPerformanceWarning(
                f"Grid size {size} will likely result in GPU under-utilization due to low "
                "occupancy.")
        warnings.warn(warning, stacklevel=user_stacklevel())


__all__ = ["Launch", "ForAll", "launch_through_numba", "validate_launch_config",
           "occupancy_warning"]
