"""The cyclic garbage collector's share of a timed block (for the compile-time samples).

A compile-time sample is a few tenths of a second; a full collection (generation 2) in the
benchmark's process scans every object it holds -- over a million by the end of a run, since
numba keeps each re-imported real-world module's dispatchers in its typing caches -- and takes
a quarter of a second or more. Which sample pays for it depends on what the samples *before*
it allocated, so one collection could double a sample of either mode. overhead.py therefore
collects before each sample and freezes what is left (`gc.freeze`: a collection scans none of
it after; a full collection before every sample would itself take a quarter of a second each):
each sample starts with nothing pending from the others, and pays for what its own
allocations trigger. `CollectorTime` records what the collector took within a sample, per
generation, so a report says how much of each mode's time it was.
"""
from __future__ import annotations

import gc
import time


def settle() -> None:
    """Collect, and freeze what is left: the next timed block pays only for what it allocates
    (`gc.unfreeze()` when the timing is over)."""
    gc.collect()
    gc.freeze()


class CollectorTime:
    """`with CollectorTime() as c:` -- `c.seconds` and `c.counts` (per generation, 0-2) of the
    collections that ran inside the block."""

    def __init__(self):
        self.seconds = [0.0, 0.0, 0.0]
        self.counts = [0, 0, 0]
        self._start = None

    def _callback(self, phase, info):
        if phase == "start":
            self._start = time.perf_counter()
        elif self._start is not None:
            generation = info.get("generation", 2)
            self.seconds[generation] += time.perf_counter() - self._start
            self.counts[generation] += 1
            self._start = None

    def __enter__(self):
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self._callback)
        return False

    @property
    def total(self) -> float:
        return sum(self.seconds)


__all__ = ["settle", "CollectorTime"]
