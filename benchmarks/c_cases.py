"""The C versions of twelve cases, shared by CUDA C (CuPy) and OpenCL C (PyOpenCL).

A C version keeps everything of the numba case but its kernels: the same data (same seed),
NumPy reference and comparison, and the same launches -- the numba plan's kernels, grids and
blocks, each launch's arguments passed through `ARGS` to the C kernel's signature, which adds
the sizes a C kernel is given where numba reads `shape` (and nothing else). Sources:
`cuda_c_cases.CUDA_SOURCES`, `opencl_cases.OPENCL_SOURCES`; both languages launch a kernel
with CUDA's (grid, block), which OpenCL runs as global size grid * block, local size block.
A language may adapt a case's arguments its own way (`adapt(..., args=)`): CUDA C's bfs_step
takes its CSR graph as a struct by value, with the arrays' device addresses in it.
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


def _saxpy(args, case):
    return args + _i32(case.arrays["y"].size)


def _jacobi(args, case):
    return args + _i32(*case.arrays["u"].shape)


def _reduce_sum(args, case):
    return args + _i32(case.arrays["x"].size)


def _prefix_scan(args, case):
    # scan_blocks (x, out, sums) and scan_add_offsets (out, sums) take n; scan_block_sums
    # (sums) the number of block totals
    if len(args) == 1:
        return args + _i32(case.arrays["sums"].size)
    return args + _i32(case.arrays["x"].size)


def _gather_scatter(args, case):
    return args + _i32(case.arrays["x"].size)


def _bfs_step(args, case):
    return args + _i32(case.arrays["frontier"].size)


#: case name -> (numba launch arguments, case) -> the C kernel's arguments
ARGS = {"vector_add": _vector_add, "matmul_tiled": _matmul_tiled, "histogram": _histogram,
        "spmv_csr": _spmv_csr, "transpose": _transpose, "hotspot": _hotspot,
        "saxpy": _saxpy, "jacobi": _jacobi, "reduce_sum": _reduce_sum,
        "prefix_scan": _prefix_scan, "gather_scatter": _gather_scatter, "bfs_step": _bfs_step}
NAMES = tuple(ARGS)


def adapt(case, sources: dict, suffix: str, args: dict | None = None):
    """The C version of a numba `case`: kernels {name: source text}, launches through ARGS
    (or a language's own adapter in `args`)."""
    source = sources[case.name]
    numba_plan, to_c = case.plan, (args or {}).get(case.name, ARGS[case.name])

    def plan(d):
        return [(name, grid, block, to_c(tuple(args), case))
                for name, grid, block, args in numba_plan(d)]

    return dataclasses.replace(case, kernels={name: source for name in case.kernels},
                               plan=plan, extra=dict(case.extra, filename=case.name + suffix))


__all__ = ["ARGS", "NAMES", "adapt"]
