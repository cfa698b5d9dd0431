"""numba's launch-configuration protocol of a checked kernel (numba.cuda.launchconfig).

While numba's launch compiles a kernel, its launch configuration is current: code that runs then
(rewrites and hooks that specialise a kernel for its launch, as cuda.coop does) may read it and
mark the compile sensitive to it. A checked kernel (kernel.py) answers numba's two calls of
that protocol here: `_compile_for_args` (numba's dispatcher calls it when a launch needs a
compile) and `mark_launch_config_sensitive()`. The configured launch itself is
launching.Launch.
"""
from __future__ import annotations

from .surface import hidden_types


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


__all__ = ["compile_for_args", "mark_launch_config_sensitive"]
