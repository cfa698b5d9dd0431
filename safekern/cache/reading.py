"""Reading the single-file store: the in-memory index of its records and the lookups.

`CacheReading` is the half of `Cache` (store.py) that readers use without any lock: it keeps the
index of live records, extends it by reading only what was appended since its last look, starts
over when the file was replaced, and answers `get`, `entries`, `stats`. store.py adds opening,
writing, compaction and the locks.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import stat
import struct
import time
from dataclasses import dataclass

from . import files
from . import format as fmt
from .keys import digest as _key_digest
from .trust import trust_problem, warn_once

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


class CacheReading:
    """The index and lookups of `Cache` (a base class: the state lives in Cache.__init__)."""

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


def _same_record(a: fmt.RecordHeader | None, b: fmt.RecordHeader) -> bool:
    """Same record, whatever its last-use time (the one field rewritten in place)."""
    return a is not None and (a.kind, a.created, a.digest, a.key_len, a.meta_len,
                              a.payload_len) == (b.kind, b.created, b.digest, b.key_len,
                                                 b.meta_len, b.payload_len)
