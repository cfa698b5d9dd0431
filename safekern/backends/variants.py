"""Launch variants by which of a kernel's launch predicates hold: one table for every backend.

A backend evaluates a kernel's predicates at a launch as a bit mask (numba: predicates.py; the
C front ends: c_launch.py) and asks `VariantTable.lookup(mask)` for the kernel to run: the
variant without the checks the holding predicates prove, made by `make(key)` on first use, or
None (the checked kernel) when none holds. Bit i proves the set `parts[i]`; a mask's key is the
union of its bits' sets (the full mask's: `full_key`). Variants for a proper subset are made
for at most `PARTIAL_VARIANTS` keys; launches past that run checked. `on_error(err)`, if given,
answers a variant that failed to build (None: the checked kernel runs); otherwise the error
propagates.
"""
from __future__ import annotations

import threading

PARTIAL_VARIANTS = 3


class VariantTable:
    def __init__(self, parts, make, *, full_key, on_error=None):
        self.parts = tuple(parts)
        self.full = (1 << len(self.parts)) - 1
        self.full_key = full_key
        self._make = make
        self._on_error = on_error
        self._by_mask: dict = {0: None}
        self._made: dict = {}              # key -> kernel (None: it failed to build)
        self._lock = threading.Lock()

    def lookup(self, m):
        """The kernel for mask `m` (module doc)."""
        try:
            return self._by_mask[m]
        except KeyError:
            return self._choose(m)

    def _choose(self, m):
        with self._lock:
            if m in self._by_mask:
                return self._by_mask[m]
            if m == self.full:
                key = self.full_key
            else:
                key = frozenset().union(*(p for i, p in enumerate(self.parts) if m >> i & 1))
                partial = sum(1 for k in self._made if k != self.full_key)
                if key not in self._made and partial >= PARTIAL_VARIANTS:
                    self._by_mask[m] = None
                    return None
            if key not in self._made:
                try:
                    self._made[key] = self._make(key)
                except Exception as err:
                    if self._on_error is None:
                        raise
                    self._made[key] = self._on_error(err)
            kernel = self._by_mask[m] = self._made[key]
            return kernel

    def kernels(self) -> list:
        """The variants made so far."""
        return [k for k in self._made.values() if k is not None]


__all__ = ["VariantTable", "PARTIAL_VARIANTS"]
