"""Where a warning should point: the first frame outside safekern, i.e. the user's line.

A fixed `stacklevel` is wrong for a library whose warnings are raised at different depths (a
kernel decorated at import, a launch, a direct `safekern.cache.Cache(...)`): it lands on
safekern's own files, which tells the user nothing. `user_stacklevel()` counts the frames instead.
(Python 3.12's `warnings.warn(skip_file_prefixes=...)` does the same; safekern supports 3.10.)
"""
from __future__ import annotations

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _internal(filename: str) -> bool:
    # Import machinery sits between safekern's own frames when a module is imported lazily.
    return filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen importlib")


def user_stacklevel() -> int:
    """The `stacklevel` that makes a `warnings.warn` call in the caller's own frame point at
    the innermost frame outside safekern (the whole stack's outermost frame if every frame is
    safekern's, e.g. `python -m safekern`)."""
    frame = sys._getframe(1)        # the function that will call warnings.warn: level 1
    level = 1
    while frame.f_back is not None and _internal(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


__all__ = ["user_stacklevel"]
