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
import stat
import struct
import threading
import time
import weakref
from dataclasses import dataclass

from . import files
from . import format as fmt
from .keys import digest as _key_digest
from .trust import trust_problem, warn_once
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


@dataclass(frozen=True)
class Entry:
    """One live record, as `Cache.entries()` lists it."""
    digest: str          # sha256 of the key, hex
    meta: dict
    key_size: int
    payload_size: int
    record_size: int
    created: int         # unix seconds
    last_used: int       # unix seconds, updated in place on hits
    offset: int


@dataclass(slots=True)
class _Slot:
    offset: int
    header: fmt.RecordHeader
    last_used: int


_live_caches: "weakref.WeakSet[Cache]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for cache in list(_live_caches):
        cache._lock = threading.RLock()
        cache._filelock = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class Cache:
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

    def _reset_index(self) -> None:
        self._index = {}
        self._end = fmt.HEADER_SIZE
        self._stuck = None
        self._dead = 0
        self._damaged = {}

    # -- reading -----------------------------------------------------------------------------

    def _open_current(self) -> bool:
        """Make the open fd the file now at `path`; False when there is none (or it is refused).
        Raises OSError on I/O errors."""
        if self.problem:
            return False
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._close()
            self._reset_index()
            return False
        if (st.st_dev, st.st_ino) == self._ident:
            return True
        if not stat.S_ISREG(st.st_mode):     # before open(): a FIFO would block it
            self._refuse(f"{self.path} is not a regular file")
            return False
        self._close()
        self._reset_index()
        flags = os.O_RDONLY if self.write_problem else os.O_RDWR
        try:
            fd = os.open(self.path, flags | getattr(os, "O_CLOEXEC", 0) |
                         getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            return False
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) |
                         getattr(os, "O_BINARY", 0))
            if not self.readonly:
                self._stop_writing("the file is not writable")
        fst = os.fstat(fd)
        problem = trust_problem(fst, self.readonly)
        if problem:
            os.close(fd)
            self._refuse(f"{self.path} is {problem}")
            return False
        self._fd, self._ident = fd, (fst.st_dev, fst.st_ino)
        self._header_damaged = False
        self._generation = None
        head = fmt.pread(fd, fmt.HEADER_SIZE, 0)
        if not head:
            self._header_damaged = True      # empty file: a writer initialises it
            return True
        try:
            self._generation = fmt.parse_file_header(head).generation
        except fmt.FormatError as exc:
            self._refuse(f"{self.path}: {exc}; it is left alone (remove it, or point "
                         "SAFEKERN_CACHE elsewhere)")
            return False
        except ValueError as exc:
            self._header_damaged = True
            warn_once(("header", self.path), f"safekern kernel cache {self.path}: {exc}; its "
                      "contents are ignored until a writer starts a new file")
        return True

    def _refresh(self) -> bool:
        """Bring the index up to date with the file; False when there is no usable file."""
        if not self._open_current():
            return False
        if self._header_damaged:
            return True
        st = os.fstat(self._fd)
        if st.st_size < self._end:      # shrunk below what we read: someone rewrote it in place
            self._reset_index()
        if st.st_size <= self._end or self._stuck == (st.st_size, st.st_mtime_ns):
            return True
        scanner = fmt.scan(self._fd, self._end, st.st_size)
        apply = self._apply
        while True:
            try:
                item = next(scanner)
            except StopIteration as stop:
                self._end = stop.value
                break
            apply(*item)
        self._stuck = (st.st_size, st.st_mtime_ns) if self._end < st.st_size else None
        return True

    def _apply(self, offset: int, header: fmt.RecordHeader | None, length: int,
               problem: str | None) -> None:
        if problem:
            self._note_damage(offset, problem)
            return
        if self._index.pop(header.digest, None) is not None:
            self._dead += 1
        if header.kind == fmt.KIND_TOMBSTONE:
            self._dead += 1
        else:
            self._index[header.digest] = _Slot(offset, header, header.last_used)

    def _drop(self, digest: bytes, offset: int) -> None:
        slot = self._index.get(digest)
        if slot is not None and slot.offset == offset:
            del self._index[digest]

    def _note_damage(self, offset: int, problem: str) -> None:
        if offset in self._damaged:
            return
        self._damaged[offset] = problem
        warn_once(("damaged", self.path),
                  f"safekern kernel cache {self.path}: damaged record at offset {offset} "
                  f"({problem}) ignored; `python -m safekern cache verify` checks the file")

    def _read_slot(self, slot: _Slot, key: bytes | None):
        """(key, meta, payload) of an indexed record after checking it, or None."""
        length = slot.header.length
        data = fmt.pread(self._fd, length, slot.offset)
        if len(data) < length:
            problem = "record cut short"
        elif not _same_record(fmt.parse_record_header(data), slot.header):
            problem = "record header changed"
        else:
            problem = fmt.check_record(data)
        if problem:
            self._note_damage(slot.offset, problem)
            self._drop(slot.header.digest, slot.offset)
            return None
        parts = fmt.split_record(data, slot.header)
        if key is not None and parts[0] != key:
            log.debug("digest collision at offset %d: stored key differs; a miss", slot.offset)
            return None
        return parts

    def get(self, key: bytes) -> bytes | None:
        """The payload stored under `key`, or None (a miss, or any problem with the file)."""
        key = bytes(key)
        with self._lock:
            try:
                if not self._refresh():
                    return None
                slot = self._index.get(_key_digest(key))
                if slot is None:
                    return None
                parts = self._read_slot(slot, key)
                if parts is None:
                    return None
                self._touch(slot)
                return parts[2]
            except OSError as exc:
                self._io_problem("read", exc)
                return None

    def _touch(self, slot: _Slot) -> None:
        now = int(time.time())
        if self.write_problem or now - slot.last_used < self.touch_interval:
            return
        try:   # one aligned 8-byte word, outside every checksum: needs no lock
            files.pwrite(self._fd, struct.pack("<q", now), slot.offset + fmt.LAST_USED_OFFSET)
            slot.last_used = now
        except OSError as exc:
            log.debug("could not record last use in %s: %s", self.path, exc)

    def _io_problem(self, what: str, exc: OSError) -> None:
        warn_once(("io", what, self.path), f"safekern kernel cache {self.path}: {what} "
                  f"failed ({exc.strerror or exc}); going on without it")

    def __contains__(self, key) -> bool:
        """Whether an entry for `key` is indexed (its payload checksum is checked by get)."""
        key = bytes(key)
        with self._lock:
            try:
                if not self._refresh():
                    return False
                slot = self._index.get(_key_digest(key))
                return slot is not None and \
                    fmt.pread(self._fd, len(key), slot.offset + fmt.RECORD_HEADER_SIZE) == key
            except OSError as exc:
                self._io_problem("read", exc)
                return False

    def __len__(self) -> int:
        with self._lock:
            try:
                return len(self._index) if self._refresh() else 0
            except OSError as exc:
                self._io_problem("read", exc)
                return 0

    def entries(self) -> list[Entry]:
        """Every live entry, oldest record first, with its metadata (payloads are not read)."""
        out = []
        with self._lock:
            try:
                if not self._refresh():
                    return []
                for slot in sorted(self._index.values(), key=lambda s: s.offset):
                    h = slot.header
                    head = fmt.pread(self._fd, fmt.RECORD_HEADER_SIZE + h.key_len + h.meta_len,
                                     slot.offset)
                    raw_meta = head[fmt.RECORD_HEADER_SIZE + h.key_len:]
                    try:
                        meta = json.loads(raw_meta.decode("utf-8")) if raw_meta else {}
                        if not isinstance(meta, dict):
                            meta = {"meta": meta}
                    except ValueError:
                        meta = {"error": "unreadable metadata"}
                    last_used = struct.unpack_from("<q", head, fmt.LAST_USED_OFFSET)[0] \
                        if len(head) >= 16 else slot.last_used
                    out.append(Entry(h.digest.hex(), meta, h.key_len, h.payload_len, h.length,
                                     h.created, last_used, slot.offset))
            except OSError as exc:
                self._io_problem("read", exc)
        return out

    def read_key(self, entry: Entry) -> bytes | None:
        """The full key of an entry from `entries()`, or None when it is no longer there."""
        with self._lock:
            try:
                if not self._refresh():
                    return None
                slot = self._index.get(bytes.fromhex(entry.digest))
                if slot is None or slot.offset != entry.offset:
                    return None
                return fmt.pread(self._fd, slot.header.key_len,
                                 slot.offset + fmt.RECORD_HEADER_SIZE)
            except OSError as exc:
                self._io_problem("read", exc)
                return None

    def stats(self) -> dict:
        """Figures for `python -m safekern cache info`."""
        with self._lock:
            try:
                present = self._refresh()
                size = os.fstat(self._fd).st_size if present else 0
            except OSError:
                present, size = False, 0
            return {"path": self.path, "exists": present, "size": size,
                    "max_bytes": self.max_bytes, "entries": len(self._index),
                    "dead": self._dead,
                    "damaged": len(self._damaged), "torn_tail": max(0, size - self._end)
                    if present and not self._header_damaged else 0,
                    "generation": self.generation, "readonly": self.readonly,
                    "problem": self.problem, "write_problem": self.write_problem}

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


def _same_record(a: fmt.RecordHeader | None, b: fmt.RecordHeader) -> bool:
    """Same record, whatever its last-use time (the one field rewritten in place)."""
    return a is not None and (a.kind, a.created, a.digest, a.key_len, a.meta_len,
                              a.payload_len) == (b.kind, b.created, b.digest, b.key_len,
                                                 b.meta_len, b.payload_len)
