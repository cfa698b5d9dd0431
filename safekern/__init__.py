"""safekern: memory-safe GPU kernels without making them slow.

    @safekern.jit                 # a checked numba-cuda kernel
    def k(out, a): ...
    k[blocks, threads](out, a)    # returns at once
    safekern.sync()               # raises safekern.BoundsError if an access was out of bounds

`safekern.opencl` (PyOpenCL) and `safekern.cupy` (CuPy RawKernel/RawModule) wrap C kernels.
Backends are imported when first used: importing safekern imports no GPU library.
`safekern.CacheWarning` (a UserWarning) says once per process why the kernel cache is not used.
"""
from .errors import (BoundsError, CompilationError, KernelAssertionError, KernelError,
                     KernelZeroDivisionError, RaceError, RaceWarning, SafekernError,
                     UncheckedWarning, UnsupportedError, InternalError)
from ._version import __version__
from .runtime import sync


def jit(*args, **kwargs):
    """jit(func_or_sig=None, device=False, **options)

    Checked drop-in for `numba.cuda.jit`: it takes every form numba's takes and passes the
    options on to numba::

        @safekern.jit                            # bare
        @safekern.jit(fastmath=True, lineinfo=True)
        @safekern.jit("void(float32[:], int64)")  # signature(s): compiled at once, like numba
        @safekern.jit(device=True)               # a device function, checked as well

    The kernel is launched as numba's: `k[blocks, threads](...)`,
    `k[blocks, threads, stream, shared_bytes](...)`, `k.forall(n)(...)`. Every indexed access
    is checked; a failing one is raised as `safekern.BoundsError` at the next synchronisation
    point (`d_out.copy_to_host()`, `cuda.synchronize()`, `safekern.sync()`, ...).
    `k.check_report()` lists every access and whether it is checked, `k.rewritten_source` is the
    checked source, `k.compile_ptx(sig, cc=(9, 0))` gives PTX without a GPU.

    A kernel whose source cannot be found (built by `exec`, typed at a prompt) is numba's own,
    unchecked, with a `safekern.UncheckedWarning`; a construct that cannot be checked raises
    `safekern.UnsupportedError` at decoration.
    With `SAFEKERN_CHECKS=0` it returns numba's own dispatcher. See docs/quickstart.md.
    """
    import types

    from .backends.numba.jit import jit as _jit
    from .errors import for_user, user_boundary

    __tracebackhide__ = True      # noqa: F841 - pytest and IPython hide this frame
    try:
        made = _jit(*args, **kwargs)
    except Exception as exc:
        if isinstance(exc, SafekernError) or getattr(exc, "_safekern_user_error", False):
            raise for_user(exc)   # the message names the kernel's file and line
        raise
    # `@safekern.jit(...)` returns the decorator: a boundary as well.
    return user_boundary(made) if isinstance(made, types.FunctionType) else made


def __getattr__(name):
    # safekern.CacheWarning is safekern.cache.CacheWarning, imported on first use so that
    # `import safekern` stays light (the cache package brings filelock).
    if name == "CacheWarning":
        from .cache.trust import CacheWarning

        return CacheWarning
    raise AttributeError(f"module 'safekern' has no attribute {name!r}")


__all__ = ["jit", "sync", "KernelError", "BoundsError", "RaceError", "RaceWarning",
           "KernelAssertionError",
           "KernelZeroDivisionError", "CompilationError", "UnsupportedError", "InternalError",
           "SafekernError", "UncheckedWarning", "CacheWarning", "__version__"]
