"""A kernel's launch predicates (frontend/python/launch.py) at its launches: which variant runs.

`LaunchVariants(predicates, make)` evaluates every predicate of a launch in one compiled call
(`mask(args, config)`: bit i set when predicate i holds for these arguments -- the user's, in
order -- and this configuration) and answers the kernel that launch may run: the variant
without the checks of exactly the predicates that hold, made by `make(subset)` on first use
(`subset` None: all of them), or the checked kernel (`None`) when none holds. A variant for a
proper subset is made for at most `PARTIAL_VARIANTS` subsets; other launches run checked.
Anything unexpected -- an argument without `.shape`, a scalar that is not an integer, a
configuration numba would reject -- holds nothing: the checked kernel runs. The cost is what
the predicates compare (a few attribute reads and integer compares), paid at every launch.
"""
from __future__ import annotations

import numpy as np
from numba import config as numba_config

from ..variants import PARTIAL_VARIANTS, VariantTable


def _int(value) -> int:
    """A scalar argument's value, if the launch passes an integer (bool is not one here)."""
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError("not an integer")


def _pyint(value) -> int:
    """A scalar argument the prover may assume an exact integer (frontend/python/aliases.py):
    a Python int (not bool), which numba types int64 and the simulator computes with exactly;
    on a GPU also a NumPy signed integer, whose arithmetic numba does in int64 (the simulator
    keeps NumPy's width: `np.int32 * blockIdx.x` could wrap there)."""
    if type(value) is int:
        return value
    if isinstance(value, np.signedinteger) and not numba_config.ENABLE_CUDASIM:
        return int(value)
    raise TypeError("not an exact integer here")


def _dim3(dim) -> tuple:
    if type(dim) is int:
        return (dim, 1, 1)
    if isinstance(dim, tuple):
        if len(dim) == 3:
            return dim
        return tuple(dim) + (1,) * (3 - len(dim))
    return (dim.x, dim.y, dim.z)            # numba's Dim3


def compile_mask(predicates):
    """`mask(args, config)` -> int, bit i for predicate i (see the module doc)."""
    lines = ["def mask(args, grid, block):", "    m = 0"]
    for i, p in enumerate(predicates):
        # Each on its own: a predicate that cannot be evaluated holds nothing, the others may.
        lines += ["    try:", f"        if {p.python()}:", f"            m |= {1 << i}",
                  "    except Exception:", "        pass"]
    lines.append("    return m")
    source = "\n".join(lines) + "\n"
    namespace = {"_int": _int, "_pyint": _pyint}
    exec(compile(source, "<safekern launch predicates>", "exec"), namespace)
    test = namespace["mask"]

    def mask(args, config) -> int:
        try:
            return test(args, _dim3(config[0]), _dim3(config[1]))
        except Exception:          # noqa: BLE001 -- a configuration to reject: numba says so
            return 0

    mask.source = source
    return mask


class LaunchVariants:
    """The launch variants of one kernel, by which of its predicates hold (module doc)."""

    def __init__(self, predicates, make):
        self.predicates = tuple(predicates)
        self.mask = compile_mask(self.predicates)
        # A variant's key: the predicates it assumes; the full variant's None (the rewrite's
        # own launch_variant).
        self._table = VariantTable([frozenset([p]) for p in self.predicates], make,
                                   full_key=None)
        self.full = self._table.full

    def for_launch(self, args, config):
        """The variant this launch may run, or None (the checked kernel)."""
        return self._table.lookup(self.mask(args, config))

    def full_variant(self):
        """The variant of all the predicates, made now if it was not (a kernel decorated with
        signatures compiles it at decoration: dispatch.eager_variant)."""
        return self._table.lookup(self.full)

    def kernels(self) -> list:
        """The variants made so far."""
        return self._table.kernels()


__all__ = ["LaunchVariants", "compile_mask", "PARTIAL_VARIANTS"]
