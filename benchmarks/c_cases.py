"""The C versions of six cases, shared by CUDA C (CuPy) and OpenCL C (PyOpenCL).

A C version keeps everything of the numba case but its kernels: the same data (same seed),
NumPy reference and comparison, and the same launches -- the numba plan's kernels, grids and
blocks, each launch's arguments passed through `ARGS` to the C kernel's signature, which adds
the sizes a C kernel is given where numba reads `shape` (and nothing else). Sources:
`cuda_c_cases.CUDA_SOURCES`, `opencl_cases.OPENCL_SOURCES`; both languages launch a kernel
with CUDA's (grid, block), which OpenCL runs as global size grid * block, local size block.
"""
from __future__ import annotations

import dataclasses

import numpy as np


def _i32(*values):
    return tuple(np.int32(v) for v in values)


def _vector_add(args, case):
    return args + _i32(case.arrays["out"].size)


def _matmul_tiled(args, case):
    (n, k), m = case.arrays["a"].shape, case.arrays["b"].shape[1]
    return args + _i32(n, k, m)


def _histogram(args, case):
    return args + _i32(case.arrays["data"].size)


def _spmv_csr(args, case):
    return args + _i32(case.arrays["y"].size)


def _transpose(args, case):
    return args + _i32(*case.arrays["a"].shape)


def _hotspot(args, case):
    rows, cols = case.arrays["temp"].shape
    # Rodinia's signature: (iteration, power, src, dst, grid_cols, grid_rows, border_cols, ...)
    return args[:4] + _i32(cols, rows) + args[4:]


#: case name -> (numba launch arguments, case) -> the C kernel's arguments
ARGS = {"vector_add": _vector_add, "matmul_tiled": _matmul_tiled, "histogram": _histogram,
        "spmv_csr": _spmv_csr, "transpose": _transpose, "hotspot": _hotspot}
NAMES = tuple(ARGS)


def adapt(case, sources: dict, suffix: str):
    """The C version of a numba `case`: kernels {name: source text}, launches through ARGS."""
    source = sources[case.name]
    numba_plan, to_c = case.plan, ARGS[case.name]

    def plan(d):
        return [(name, grid, block, to_c(tuple(args), case))
                for name, grid, block, args in numba_plan(d)]

    return dataclasses.replace(case, kernels={name: source for name in case.kernels},
                               plan=plan, extra=dict(case.extra, filename=case.name + suffix))


__all__ = ["ARGS", "NAMES", "adapt"]
