"""Per-key compile locks across processes: one byte-range lock per key on `<cache>.keylock`.

A process about to compile a kernel locks the byte at an offset derived from the key digest; a
second process that misses on the same key waits for that byte (with a timeout), then finds the
first one's result in the cache. One file serves every key, so nothing is left behind per kernel.

POSIX record locks belong to a process and vanish when it exits or closes *any* descriptor of the
file, so each process opens the lock file once and keeps it open (`_shared_fd`). Within a process
`KernelCache` already lets one thread compile a key at a time. Where `fcntl` is missing
(Windows) there are no cross-process key locks: each process compiles for itself.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

try:
    import fcntl
except ImportError:            # Windows
    fcntl = None

_fds: dict[str, int] = {}
_fds_lock = threading.Lock()


def _shared_fd(path: str) -> int:
    with _fds_lock:
        fd = _fds.get(path)
        if fd is None:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) |
                         getattr(os, "O_NOFOLLOW", 0), 0o600)
            _fds[path] = fd
        return fd


def _offset(digest: bytes) -> int:
    return int.from_bytes(digest[:6], "little")   # 48 bits: collisions only serialise


@contextmanager
def key_lock(lock_path: str, digest: bytes, timeout: float):
    """Hold the lock of `digest`. Yields True when held, False when `timeout` seconds passed
    first, None when this platform or file system cannot lock; without the lock the caller
    goes ahead anyway."""
    if fcntl is None:
        yield None
        return
    try:
        fd = _shared_fd(lock_path)
    except OSError:
        yield None
        return
    start = _offset(digest)
    deadline = time.monotonic() + max(0.0, timeout)
    delay = 0.001
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, start, os.SEEK_SET)
            break
        except (BlockingIOError, PermissionError):
            if time.monotonic() >= deadline:
                yield False
                return
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.005)
        except OSError:          # e.g. ENOLCK on a file system without locks
            yield None
            return
    try:
        yield True
    finally:
        try:
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, start, os.SEEK_SET)
        except OSError:
            pass
