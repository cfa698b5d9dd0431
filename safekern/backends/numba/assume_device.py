"""Compiling for a GPU where there is none (PTX, the kernel cache's keys, tools)."""
from __future__ import annotations

from numba import cuda


class assume_device:
    """Without a GPU, numba-cuda compiles device functions for "the current device"; let that
    be a device of compute capability `cc` (only while compiling PTX, only without a GPU)."""

    def __init__(self, cc):
        self.cc = tuple(cc)
        self.saved = None

    def __enter__(self):
        if cuda.is_available():
            return self
        import numba.cuda.dispatcher as dispatcher

        cc = self.cc
        self.saved = dispatcher.get_current_device
        dispatcher.get_current_device = lambda: type("AssumedDevice", (), {
            "compute_capability": cc})()
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            import numba.cuda.dispatcher as dispatcher
            dispatcher.get_current_device = self.saved


__all__ = ["assume_device"]
