"""Index idioms the linear forms read as what they mean.

`blockIdx.k * blockDim.k + threadIdx.k` (in any order, through names) is the thread's grid
position on axis k, which `cuda.grid` gives: its atom, bounded by the launch's `gridsize`
(launch.py's thread facts), not an opaque product of two launch values plus an index.
"""
from __future__ import annotations

import ast

from .linear import Form

GRID_MAX = 2 ** 41           # gridDim.x * blockDim.x <= (2**31 - 1) * 1024
# cuda.<attr>.<axis>: what every CUDA GPU guarantees (blocks of at most (1024, 1024, 64)
# threads, grids of at most (2**31 - 1, 65535, 65535) blocks).
CUDA_BOUNDS = {
    ("threadIdx", "x"): (0, 1023), ("threadIdx", "y"): (0, 1023), ("threadIdx", "z"): (0, 63),
    ("blockDim", "x"): (1, 1024), ("blockDim", "y"): (1, 1024), ("blockDim", "z"): (1, 64),
    ("blockIdx", "x"): (0, 2 ** 31 - 2), ("blockIdx", "y"): (0, 65534),
    ("blockIdx", "z"): (0, 65534),
    ("gridDim", "x"): (1, 2 ** 31 - 1), ("gridDim", "y"): (1, 65535), ("gridDim", "z"): (1, 65535),
}


def _single_cuda(form: Form):
    """(name, axis) when `form` is exactly one `cuda.<name>.<axis>` atom, else None."""
    if form.const == 0 and len(form.terms) == 1 and form.terms[0][1] == 1:
        atom = form.terms[0][0]
        if len(atom) == 3 and atom[0] == "cuda" and atom[1] in ("blockIdx", "blockDim"):
            return atom[1], atom[2]
    return None


def grid_idiom(atoms, form: Form) -> Form:
    """`form` with an opaque `blockIdx.k * blockDim.k` term and `threadIdx.k` of the same
    coefficient replaced by cuda.grid's atom for axis k (registered in `atoms`)."""
    for atom, c in form.terms:
        if atom[0] != "term" or atom[1] != "Mult":
            continue
        factors = {_single_cuda(atom[2]), _single_cuda(atom[3])}
        for axis_no, axis in enumerate(("x", "y", "z")):
            if factors != {("blockIdx", axis), ("blockDim", axis)}:
                continue
            thread = ("cuda", "threadIdx", axis)
            if form.coeff(thread) != c:
                continue
            key = ("cuda", "grid", 1) if axis_no == 0 else ("cuda", "grid", axis_no + 1, axis_no)
            grid = atoms.add(key, lower=0, upper=GRID_MAX, integer=True)
            return form.without(atom).without(thread) + Form(((grid, c),))
    return form


def len_of(node):
    """The array name `x` of `len(x)`, else None (the caller knows `len` is the builtin)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "len" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Name) and not node.keywords:
        return node.args[0].id
    return None


__all__ = ["grid_idiom", "len_of", "GRID_MAX", "CUDA_BOUNDS"]
