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
                     UncheckedWarning, UnsupportedError)
from .runtime import sync

__version__ = "0.1.0"


def jit(*args, **kwargs):
    """Checked drop-in for `numba.cuda.jit`: every form numba's accepts (see docs/quickstart.md)."""
    from .backends.numba_cuda import jit as _jit

    return _jit(*args, **kwargs)


def __getattr__(name):
    # safekern.CacheWarning is safekern.cache.CacheWarning, imported on first use so that
    # `import safekern` stays light (the cache package brings filelock).
    if name == "CacheWarning":
        from .cache.trust import CacheWarning

        return CacheWarning
    raise AttributeError(f"module 'safekern' has no attribute {name!r}")


__all__ = ["jit", "sync", "KernelError", "BoundsError", "RaceError", "RaceWarning",
           "KernelAssertionError",
           "KernelZeroDivisionError", "CompilationError", "UnsupportedError",
           "SafekernError", "UncheckedWarning", "CacheWarning", "__version__"]
