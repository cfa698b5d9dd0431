"""Time budgets for the long randomized tests (fuzzers, kill loops).

A fixed count under a fixed pytest timeout fails on a slow or busy machine (issue 29: 500 fuzz
seeds took ~135 s of CPU on a loaded 2-core machine and ran into a 240 s timeout) and wastes a fast
one. A Budget instead runs at least `at_least` cases -- the coverage every run must have -- and
then as many more as fit in `seconds`, judged by the time per case measured so far in this run.
The pytest timeout of such a test is only a hang guard, far above the budget.

SAFEKERN_TEST_BUDGET_SCALE multiplies every budget (e.g. 4 on CI for a longer fuzz; 0 runs just
the minimum counts).
"""
from __future__ import annotations

import os
import sys
import time

SCALE_VARIABLE = "SAFEKERN_TEST_BUDGET_SCALE"


def _scale() -> float:
    text = os.environ.get(SCALE_VARIABLE, "").strip()
    try:
        return max(0.0, float(text)) if text else 1.0
    except ValueError:
        raise ValueError(f"{SCALE_VARIABLE}={text!r}: expected a number") from None


class Budget:
    """Iterate cases 0, 1, ... (or seeds from `start`) for `seconds` (times the scale), never
    fewer than `at_least`, never more than `at_most`. After the loop, `ran`, `elapsed` and
    `rate` say what happened (str() for a log line)."""

    def __init__(self, seconds: float, *, at_least: int, at_most: int | None = None,
                 clock=time.monotonic):
        if at_least < 1:
            raise ValueError("a budgeted test runs at least one case")
        self.seconds = seconds * _scale()
        self.at_least = at_least
        self.at_most = at_most
        self._clock = clock
        self.ran = 0
        self.elapsed = 0.0

    @property
    def rate(self) -> float:
        """Cases per second so far."""
        return self.ran / self.elapsed if self.elapsed > 0 else float("inf")

    def _another_fits(self) -> bool:
        if self.at_most is not None and self.ran >= self.at_most:
            return False
        if self.ran < self.at_least:
            return True
        # The next case is expected to take the mean time of those so far.
        return self.elapsed + self.elapsed / self.ran <= self.seconds

    def seeds(self, start: int = 0):
        began = self._clock()
        while self._another_fits():
            yield start + self.ran
            self.ran += 1
            self.elapsed = self._clock() - began

    __iter__ = seeds

    def __str__(self) -> str:
        return (f"{self.ran} cases in {self.elapsed:.1f} s ({self.rate:.2f}/s; "
                f"budget {self.seconds:.0f} s, at least {self.at_least})")

    def log(self, what: str) -> None:
        """One line on stderr (shown with -s or on failure): how far this run got."""
        print(f"\n{what}: {self}", file=sys.stderr)


__all__ = ["Budget", "SCALE_VARIABLE"]
