"""Whether a cache file may be trusted, and the one warning a user sees about cache problems.

A cache file holds binaries that will run on the GPU, so one that another user could have
written is not used. Problems are announced once per process and topic with a CacheWarning (and
logged every time on "safekern.cache"); kernels then run uncached.
"""
from __future__ import annotations

import logging
import os
import stat
import threading
import warnings

from .._stack import user_stacklevel

log = logging.getLogger("safekern.cache")


class CacheWarning(UserWarning):
    """The kernel cache cannot be used (fully); kernels still run, compiled in this process."""


_warned: set = set()
_warned_lock = threading.Lock()


def warn_once(topic: tuple, message: str) -> None:
    """Log `message` every time and show it as a CacheWarning the first time for `topic`, at
    the user's line that led to it (the first frame outside safekern)."""
    log.info("%s", message)
    with _warned_lock:
        if topic in _warned:
            return
        _warned.add(topic)
    warnings.warn(message, CacheWarning, stacklevel=user_stacklevel())


def _euid() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


#: the owner besides yourself whose files a read-only cache may use: a pre-seeded shared cache
#: typically belongs to root, who can replace any file anyway
_SHARED_OWNER = 0


def trust_problem(st: os.stat_result, readonly: bool) -> str | None:
    """Why a file must not be trusted as a cache, or None. A file another user can write could
    hold any binary; a read-only shared cache may belong to root."""
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    uid = _euid()
    if uid is not None and st.st_uid != uid and not (readonly and st.st_uid == _SHARED_OWNER):
        return f"owned by another user (uid {st.st_uid}; you are uid {uid})"
    if os.name == "posix" and st.st_mode & 0o022:
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None
