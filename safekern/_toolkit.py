"""A missing CUDA toolkit library, said in terms of what to install.

numba-cuda finds NVRTC and NVVM through cuda-pathfinder; without them, compiling fails deep in
cuda-bindings with `DynamicLibNotFoundError: Failure finding "libnvrtc.so.13 or
libnvrtc.so.12"`, which does not say that one pip extra fixes it. `explain_missing_toolkit`
turns that (and numba's own NvvmSupportError / NvrtcSupportError) into a CompilationError that
does, with the original as its cause.
"""
from __future__ import annotations

import contextlib

from .errors import CompilationError

#: exception classes (by name: no import of cuda-pathfinder or numba here) meaning "a CUDA
#: toolkit library is not installed"
MISSING_LIBRARY_ERRORS = frozenset({"DynamicLibNotFoundError", "NvvmSupportError",
                                    "NvrtcSupportError"})

INSTALL_HINT = ("install them with the extra for your CUDA driver: "
                "pip install 'safekern[cuda13]' (CUDA 13 driver) or "
                "pip install 'safekern[cuda12]' (CUDA 12 driver), "
                "or set CUDA_HOME to a CUDA toolkit")


def is_missing_library(exc: BaseException) -> bool:
    return any(cls.__name__ in MISSING_LIBRARY_ERRORS for cls in type(exc).__mro__)


@contextlib.contextmanager
def explain_missing_toolkit(doing: str, kernel: str | None = None):
    """Inside, a missing NVRTC/NVVM becomes CompilationError("<doing> needs ...: install ...")."""
    try:
        yield
    except Exception as exc:
        if not is_missing_library(exc):
            raise
        found = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CompilationError(
            f"{doing} needs the CUDA toolkit's NVRTC and NVVM libraries, which were not found "
            f"({type(exc).__name__}: {found}); {INSTALL_HINT}", kernel=kernel) from exc


__all__ = ["explain_missing_toolkit", "is_missing_library", "INSTALL_HINT"]
