"""What a configured launch (`kernel[griddim, blockdim(, stream(, sharedmem))]`) shows, as
numba's `_LaunchConfiguration` does.

numba hands its launch configuration to code that runs while a launch compiles the kernel
(`numba.cuda.launchconfig.current_launch_config()`: rewrites and hooks that specialise a
kernel for its launch, as cuda.coop does) and to pre-launch callbacks. A checked kernel's launch
that numba compiles or launches passes safekern's own configured launch to numba's dispatcher
(`CUDADispatcher.call(args, launch)`), so that code sees the user's kernel as `dispatcher`, the
dimensions as numba normalises them, and the launch's arguments.
"""
from __future__ import annotations

from .pickling import reduce_launch
from .surface import SIMULATOR, hidden_types


class LaunchConfigSurface:
    """Mixin of a configured launch with `kernel` and `config` (the subscript's tuple)."""

    __slots__ = ()

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


def compile_for_args(dispatcher, nparams: int, args):
    """numba's `_compile_for_args`: the kernel (`dispatcher()`: numba's dispatcher of it, with
    `nparams` user parameters) compiled for the types of `args` (the user's arguments, or those
    numba's dispatcher passes, the hidden one included)."""
    from numba.cuda.typing.typeof import Purpose, typeof

    argtypes = tuple(typeof(a, Purpose.argument) for a in args)
    if len(argtypes) == nparams:
        argtypes += hidden_types(False)
    return dispatcher().compile(argtypes)


def mark_launch_config_sensitive(kernel, numba_dispatcher) -> None:
    """numba's: marks the compilation under way (of this kernel's launch) as sensitive to the
    launch configuration, so another configuration compiles the kernel again."""
    from numba.cuda import launchconfig

    cfg = launchconfig.ensure_current_launch_config()
    if cfg.dispatcher is not kernel and cfg.dispatcher is not numba_dispatcher:
        raise RuntimeError(
            "mark_launch_config_sensitive() must be called on the active "
            "launch configuration's dispatcher")
    cfg._kernel_launch_config_sensitive = True


__all__ = ["LaunchConfigSurface", "compile_for_args", "mark_launch_config_sensitive"]
