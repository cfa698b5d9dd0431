"""The single-file store: `Cache(path, max_bytes=None, readonly=False)`.

One append-only file (layout in format.py, spec in docs/cache-format.md). Readers take no lock:
they keep an in-memory index and extend it by reading only what was appended since their last
look, and start over when the file was replaced (another inode, a new generation). Writers append
under a `filelock.FileLock` on `<path>.lock` with a finite timeout, after re-reading what others
appended and cutting off a torn tail. When an append would pass `max_bytes`, the writer compacts:
the most recently used entries, up to about half the bound, go into a temporary file in the same
directory, which is fsynced and moved over the cache with `os.replace`.

Cache problems never raise: `get` returns None, `put` returns False, the problem is logged on
"safekern.cache" and announced once per process with a `CacheWarning`.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import struct
import threading
import time
import weakref

from . import files
from . import format as fmt
from .keys import digest as _key_digest
from .trust import warn_once
from .reading import CacheReading, Entry, _Slot  # noqa: F401 (Entry: API)
from .verify import VerifyReport, verify_file  # noqa: F401 (VerifyReport: API)


class _Filelock:
    """`filelock`, imported when first used: only writers need it, and a warm start that finds
    every kernel in the cache writes nothing."""

    def __getattr__(self, name):
        import filelock as module

        globals()["filelock"] = module
        return getattr(module, name)


filelock = _Filelock()

log = logging.getLogger("safekern.cache")


_live_caches: "weakref.WeakSet[Cache]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for cache in list(_live_caches):
        cache._lock = threading.RLock()
        cache._filelock = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class Cache(CacheReading):
    """A persistent bytes -> bytes store in one file, safe for concurrent processes.

    `max_bytes=None` leaves the file unbounded. `readonly=True` never creates, locks or writes
    anything (not even last-use times). `lock_timeout` bounds every wait for the write lock.
    """

    #: a hit rewrites the record's last-use time only when it is older than this (seconds)
    touch_interval = 60.0

    def __init__(self, path, max_bytes: int | None = None, readonly: bool = False, *,
                 lock_timeout: float = 10.0):
        self.path = os.path.realpath(os.path.expanduser(os.fspath(path)))
        self.max_bytes = max_bytes
        self.readonly = bool(readonly)
        self.lock_timeout = float(lock_timeout)
        self._lock = threading.RLock()
        self._filelock: filelock.FileLock | None = None
        self._swept = False                  # orphaned temporary files removed yet?
        self._fd: int | None = None
        self._ident = None                  # (st_dev, st_ino) of the open file
        self._generation: bytes | None = None
        self._header_damaged = False
        self._index: dict[bytes, _Slot] = {}
        self._end = fmt.HEADER_SIZE          # where the last scan stopped
        self._stuck = None                   # (size, mtime_ns) when it stopped before EOF
        self._dead = 0                       # valid records that are not live entries
        self._damaged: dict[int, str] = {}   # offset -> problem
        #: why the file is not used at all (None: it is)
        self.problem: str | None = None
        #: why nothing is written (None: writes go ahead)
        self.write_problem: str | None = "read-only" if self.readonly else None
        _live_caches.add(self)
        with self._lock:
            self._start()

    # -- state -------------------------------------------------------------------------------

    @property
    def usable(self) -> bool:
        """True when lookups can hit (the file exists and is trusted) or stores can succeed."""
        return self.problem is None

    @property
    def writable(self) -> bool:
        return self.problem is None and self.write_problem is None

    @property
    def generation(self) -> str | None:
        return self._generation.hex() if self._generation else None

    def _start(self) -> None:
        try:
            exists = self._open_current()
        except OSError as exc:
            self._refuse(f"cannot open {self.path}: {exc.strerror or exc}")
            return
        if exists or self.problem or self.readonly:
            return
        try:
            os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
            with self._write_lock():
                if not self._open_current():
                    self._write_file([])
        except filelock.Timeout:
            self._stop_writing("timed out waiting for the cache's write lock")
        except OSError as exc:
            self._refuse(f"cannot create {self.path}: {exc.strerror or exc}")

    def _refuse(self, reason: str) -> None:
        self.problem = reason
        self._close()
        warn_once(("refused", self.path), f"safekern kernel cache not used: {reason}; "
                  "kernels run uncached")

    def _stop_writing(self, reason: str) -> None:
        if self.write_problem is None:
            self.write_problem = reason
            warn_once(("write", self.path), f"safekern kernel cache {self.path}: {reason}; "
                      "new kernels are not cached by this process")

    def _close(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd = None
        self._ident = None

    def close(self) -> None:
        with self._lock:
            self._close()
            self._reset_index()

    def __del__(self):
        fd = getattr(self, "_fd", None)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def verify(self) -> VerifyReport:
        """Check every record of the file, checksums included (reads the whole file)."""
        return verify_file(self.path)

    # -- writing -----------------------------------------------------------------------------

    def _write_lock(self):
        if self._filelock is None:
            self._filelock = filelock.FileLock(self.path + ".lock", timeout=self.lock_timeout,
                                               mode=0o600, thread_local=False)
        return self._filelock.acquire(timeout=self.lock_timeout)

    def _writing(self, what: str, action) -> bool:
        """Run `action()` under both locks with an up-to-date index; False on any problem."""
        if self.problem or self.write_problem:
            return False
        with self._lock:
            try:
                with self._write_lock():
                    if not self._open_current() or self._header_damaged:
                        if self.problem:
                            return False
                        if self._header_damaged:
                            log.info("starting a new cache file over the damaged one at %s",
                                        self.path)
                        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
                        self._write_file([])
                    self._refresh()
                    self._cut_torn_tail()
                    if not self._swept:
                        files.sweep_orphans(self.path)
                        self._swept = True
                    return action()
            except filelock.Timeout:
                self._stop_writing(f"timed out after {self.lock_timeout:g} s waiting for the "
                                   f"write lock {self.path}.lock")
            except OSError as exc:
                reason = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) \
                    else f"{what} failed ({exc.strerror or exc})"
                self._stop_writing(reason)
            return False

    def _cut_torn_tail(self) -> None:
        size = os.fstat(self._fd).st_size
        if size > self._end:
            log.info("cut a torn tail of %d bytes off %s (an interrupted write)",
                     size - self._end, self.path)
            os.ftruncate(self._fd, self._end)
            self._stuck = None

    def put(self, key: bytes, payload: bytes, meta: dict | None = None, *,
            replace: bool = True) -> bool:
        """Store `payload` under `key` (with JSON-able `meta` for listings). True when stored;
        with replace=False, also True when an intact entry for `key` is already there."""
        key, payload = bytes(key), bytes(payload)
        meta_bytes = json.dumps(meta or {}, sort_keys=True, default=str).encode("utf-8")
        length = fmt.record_length(len(key), len(meta_bytes), len(payload))
        if self.max_bytes is not None and fmt.HEADER_SIZE + length > self.max_bytes:
            log.info("not stored: a record of %d bytes does not fit the bound of %d bytes",
                     length, self.max_bytes)
            return False

        def action():
            digest = _key_digest(key)
            if not replace:
                slot = self._index.get(digest)
                if slot is not None and self._read_slot(slot, key) is not None:
                    return True
            if self.max_bytes is not None and self._end + length > self.max_bytes:
                self._compact((digest, key, meta_bytes, payload))
            else:
                self._append(fmt.KIND_ENTRY, digest, key, meta_bytes, payload)
            return True

        return self._writing("write", action)

    def delete(self, key: bytes) -> bool:
        """Remove `key` (appends a tombstone record). True when it is gone."""
        key = bytes(key)

        def action():
            digest = _key_digest(key)
            if digest in self._index:
                self._append(fmt.KIND_TOMBSTONE, digest, key, b"", b"")
            return True

        return self._writing("delete", action)

    def clear(self) -> bool:
        """Empty the file (a fresh file with a new generation replaces it)."""
        def action():
            self._write_file([])
            return True

        return self._writing("clear", action)

    def _append(self, kind, digest, key, meta, payload) -> None:
        now = int(time.time())
        record, marker = fmt.pack_record(kind, digest, key, meta, payload, now, now)
        offset = self._end
        try:
            files.pwrite_all(self._fd, record, offset)
            files.pwrite_all(self._fd, marker, offset + len(record))
        except OSError:
            try:
                os.ftruncate(self._fd, offset)
            except OSError:
                pass
            raise
        self._apply(offset, fmt.parse_record_header(record), len(record) + len(marker), None)
        self._end = offset + len(record) + len(marker)
        self._stuck = None

    def _compact(self, extra) -> None:
        """Keep the most recently used entries (and `extra`, the entry being stored) within
        about half the bound, in a new file."""
        digest, key, meta, payload = extra
        now = int(time.time())
        record, marker = fmt.pack_record(fmt.KIND_ENTRY, digest, key, meta, payload, now, now)
        budget = self.max_bytes // 2 - fmt.HEADER_SIZE - len(record) - len(marker)
        slots = []
        for slot in self._index.values():
            if slot.header.digest == digest:
                continue
            word = fmt.pread(self._fd, 8, slot.offset + fmt.LAST_USED_OFFSET)
            used = struct.unpack("<q", word)[0] if len(word) == 8 else 0
            # The field is outside the checksums: keep a damaged value from pinning an entry.
            slot.last_used = min(max(used, slot.header.created), now)
            slots.append(slot)
        slots.sort(key=lambda s: (s.last_used, s.offset), reverse=True)
        keep, used = [], 0
        for slot in slots:
            if used + slot.header.length <= budget:
                keep.append(slot)
                used += slot.header.length
        keep.sort(key=lambda s: s.offset)

        def records():
            for slot in keep:
                data = fmt.pread(self._fd, slot.header.length, slot.offset)
                if len(data) == slot.header.length and fmt.check_record(data) is None:
                    yield data
            yield record + marker

        kept = self._write_file(records()) - 1
        dropped = len(slots) - kept
        log.info("evict: dropped %d entries to keep %s under %d bytes; kept %d entries "
                 "(%d bytes)", dropped, self.path, self.max_bytes, kept, used)

    def _write_file(self, records) -> int:
        """Replace the file with a new generation holding `records`; returns how many."""
        count = files.replace_with(self.path, records)
        self._swept = True
        self._close()
        self._reset_index()
        self._open_current()
        self._refresh()
        return count
