"""Checked CUDA C kernels for CuPy: drop-ins for `cupy.RawKernel` and `cupy.RawModule`.

    import cupy as cp, numpy as np, safekern, safekern.cupy as skcp
    k = skcp.RawKernel(code, "gather", options=("-std=c++17",))
    k((blocks,), (threads,), (out, src, idx, np.int32(n)))   # same call as cupy.RawKernel
    safekern.sync()          # raises safekern.BoundsError if an access was out of bounds
    mod = skcp.RawModule(code=code, name_expressions=["axpy<float>"])
    f = mod.get_function("axpy<float>")
    k.check_report()         # every access: checked / proven safe / unchecked (why)

    ew = skcp.ElementwiseKernel("raw T x", "T y", "y = x[i + 1]", "shift")  # raw x checked

Pointer parameters take CuPy arrays (their size bounds the kernel's accesses);
`skcp.unchecked(ptr)` passes anything else without a bound. See docs/cupy.md.
"""
from .backends.cupy.api import RawKernel, RawModule, Unchecked, unchecked
from .backends.cupy.elementwise import ElementwiseKernel
from .backends.cupy.reduction import ReductionKernel

__all__ = ["RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel", "unchecked",
           "Unchecked"]
