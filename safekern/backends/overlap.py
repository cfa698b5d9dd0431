"""Buffer arguments that share memory, at the launch of a C kernel (CuPy RawKernel, PyOpenCL).

The C front ends know which pointer parameters a kernel stores through (frontend/c/writes.py)
but do not summarise its indices as the numba front end does (frontend/python/races.py), so no launch
of a C kernel is proven racy or race-free from its accesses. What a launch can tell is whether
two buffer arguments overlap in memory while the kernel writes one of them -- the same buffer
passed twice, two views or sub-buffers of one allocation that intersect: then two work-items
may touch one element, one of them writing, and nothing orders them.

    check = OverlapCheck(kernel="k", filename="k.cl", lineno=3, params=[(0, "a"), (1, "b")],
                         written={"b"}, unknown="")
    if check.needed:
        check.check([span_of(args[0]), span_of(args[1])])   # before the launch

A span is `(root, lo, hi)`: the bytes [lo, hi) relative to `root` (the device's address space
for CuPy; the buffer a sub-buffer belongs to for OpenCL), or None (no global memory: a null
pointer, __local memory, an argument launched unchecked). With SAFEKERN_RACES=on each kernel
warns once per pair of overlapping arguments (RaceWarning, at the user's launch line) and runs;
with `error` the launch raises RaceError before anything runs; `off` checks nothing. A launch
whose buffers are all disjoint costs a comparison per pair of a written parameter and another
pointer parameter.
"""
from __future__ import annotations

import threading
import warnings

from .. import config
from .._stack import user_stacklevel
from ..errors import RaceError, RaceWarning


class OverlapCheck:
    """The overlap check of one kernel (see the module doc)."""

    def __init__(self, *, kernel: str, filename: str, lineno: int | None, params,
                 written, unknown: str = ""):
        self.kernel = kernel
        self.filename = filename
        self.lineno = lineno
        self.params = [(int(pos), name) for pos, name in params]
        self.unknown = unknown
        names = [name for _, name in self.params]
        writes = set(names) if unknown else set(written)
        # (i, j) into params: pairs of which at least one is written, each once
        self.pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))
                      if names[i] in writes or names[j] in writes]
        self.written = writes
        self._warned: set = set()
        self._lock = threading.Lock()

    @property
    def needed(self) -> bool:
        return bool(self.pairs)

    @property
    def positions(self) -> list[int]:
        """The argument positions whose spans `check` takes, in order."""
        return [pos for pos, _ in self.params]

    def check(self, spans) -> bool:
        """Warn (or raise, SAFEKERN_RACES=error) for arguments that overlap; `spans` follows
        `positions`. True when every pair was compared and none overlaps (then the same spans
        need no check in any mode: a backend may skip them)."""
        mode = config.get().races
        if mode == "off":
            return False
        disjoint = True
        for i, j in self.pairs:
            a, b = spans[i], spans[j]
            if a is None or b is None or a[0] != b[0] or a[2] <= b[1] or b[2] <= a[1]:
                continue
            disjoint = False
            self._overlap(self.params[i][1], self.params[j][1], mode)
        return disjoint

    def _overlap(self, p: str, q: str, mode: str) -> None:
        if self.unknown:
            why = (f"and safekern cannot tell which arguments kernel {self.kernel!r} writes "
                   f"({self.unknown})")
        else:
            written = [n for n in (p, q) if n in self.written]
            what = " and ".join(repr(n) for n in written)
            why = f"and kernel {self.kernel!r} writes {what}"
        if mode == "error":
            raise RaceError(
                f"arguments {p!r} and {q!r} share memory {why}; safekern does not analyse the "
                "accesses of C kernels, so it cannot prove the launch race-free "
                "(SAFEKERN_RACES=error)", kernel=self.kernel, filename=self.filename,
                lineno=self.lineno, array=p if p in self.written else q,
                other=q if p in self.written else p)
        key = frozenset((p, q))
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        warnings.warn(RaceWarning(
            f"safekern: kernel {self.kernel!r} ({self.filename}:{self.lineno}): arguments "
            f"{p!r} and {q!r} share memory {why}; safekern cannot tell whether two threads "
            "touch one element; the kernel runs"), stacklevel=user_stacklevel())


def strided_extent(shape, strides, itemsize: int) -> tuple[int, int]:
    """(lo, hi): the bytes an array's elements occupy relative to its first element."""
    lo = hi = 0
    if not all(shape):
        return 0, 0
    for n, s in zip(shape, strides):
        if s >= 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi + itemsize


__all__ = ["OverlapCheck", "strided_extent"]
