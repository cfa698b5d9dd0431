"""The record of one benchmark case and the comparisons that verify its results.

Shared by every case module (`cases.py`, `rodinia.py`) and every kernel language: a CuPy or
PyOpenCL version of a case keeps the numba case's data, reference and comparison and brings its
own kernels and launches (`c_cases.py`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

EPS32 = 2.0 ** -24    # unit roundoff of float32


@dataclass
class Case:
    name: str
    summary: str
    size: str                    # human-readable problem size
    kernels: dict                # kernel name -> undecorated kernel function
    arrays: dict                 # name -> host array: inputs and the initial state of outputs
    outputs: tuple               # arrays a step writes; compared against `reference()`
    plan: Callable               # arrays -> [(kernel name, grid, block, args)] of one step
    reference: Callable          # () -> {output name: expected host array}
    compare: Callable            # (got, expected) -> None, or a message saying what is wrong
    resets: tuple = ()           # arrays restored before verifying (default: outputs)
    traffic_bytes: int | None = None   # minimum DRAM traffic of a step, for GB/s
    notes: str = ""
    extra: dict = field(default_factory=dict)

    def reset_names(self) -> tuple:
        return self.resets or self.outputs

    def first_launches(self):
        """(kernel name, grid, block, args) of each kernel's first launch in one step: what the
        by-hand tools compile or inspect once per kernel."""
        seen = set()
        for kernel, grid, block, args in self.plan(self.arrays):
            if kernel not in seen:
                seen.add(kernel)
                yield kernel, grid, block, args


def blocks(n: int, per: int) -> int:
    return (n + per - 1) // per


def nbytes(*arrays) -> int:
    return int(sum(a.nbytes for a in arrays))


# Comparisons -------------------------------------------------------------------------------

def _shape_problem(name, got, ref):
    if got.shape != ref.shape:
        return f"{name}: shape {got.shape}, expected {ref.shape}"
    return None


_CHUNK = 1 << 22      # elements compared at a time: bounded temporaries on 256 MB arrays


def within(name, got, ref, *, rtol, atol=0.0, scale=None):
    """|got - ref| <= atol + rtol * scale elementwise (scale: |ref| unless given), in float64.

    None, or a message with the number of bad elements and the worst one. NaN is always bad.
    """
    problem = _shape_problem(name, got, ref)
    if problem:
        return problem
    g, r = got.reshape(-1), np.asarray(ref).reshape(-1)
    sc = None if scale is None else np.broadcast_to(scale, got.shape).reshape(-1)
    bad_count, worst = 0, None          # worst: (excess, flat index)
    for lo in range(0, g.size, _CHUNK):
        hi = min(lo + _CHUNK, g.size)
        rr = r[lo:hi].astype(np.float64)
        err = np.abs(g[lo:hi].astype(np.float64) - rr)
        tol = np.abs(rr) if sc is None else sc[lo:hi].astype(np.float64)
        tol *= rtol
        tol += atol
        err -= tol                      # the excess over the tolerance
        bad = ~(err <= 0)
        if bad.any():
            bad_count += int(bad.sum())
            err[np.isnan(err)] = np.inf
            at = int(np.argmax(err))
            if worst is None or err[at] > worst[0]:
                worst = (float(err[at]), lo + at, float(tol[at]))
    if not bad_count:
        return None
    _, flat, tol_at = worst
    where = tuple(int(w) for w in np.unravel_index(flat, got.shape))
    return (f"{name}: {bad_count} of {got.size} elements out of tolerance; worst at {where}: "
            f"got {float(g[flat])!r}, expected {float(r[flat])!r} (tolerance {tol_at:.3g})")


def equal(name, got, ref):
    problem = _shape_problem(name, got, ref)
    if problem:
        return problem
    bad = got != ref
    if not bad.any():
        return None
    where = tuple(int(w) for w in np.argwhere(bad)[0])
    return (f"{name}: {int(bad.sum())} of {got.size} elements differ; first at {where}: "
            f"got {got[where]!r}, expected {ref[where]!r}")


def all_of(*messages):
    problems = [m for m in messages if m]
    return "; ".join(problems) or None


__all__ = ["Case", "EPS32", "blocks", "nbytes", "within", "equal", "all_of"]
