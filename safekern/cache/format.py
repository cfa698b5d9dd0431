"""The bytes of the cache file: header, records, checksums, and the scan that reads them.

docs/cache-format.md is the specification; this module is its code and nothing else (no locking,
no policy). All integers are little-endian. Records start at 8-byte aligned offsets so that the one
mutable field, `last_used`, is an aligned 8-byte word that can be rewritten in place.
"""
from __future__ import annotations

import hashlib
import os
import struct
import zlib
from dataclasses import dataclass
from typing import NamedTuple

FORMAT_VERSION = 1

FILE_MAGIC = b"SKCACHE\x00"
# magic, format version, header size, generation id, created, reserved, crc32 of bytes 0..60
_FILE_HEADER = struct.Struct("<8sII16sq20sI")
HEADER_SIZE = _FILE_HEADER.size  # 64

RECORD_MAGIC = b"SKRC"
COMMIT_MARKER = b"SKCOMMIT"
KIND_ENTRY = 1
KIND_TOMBSTONE = 2
# magic, kind, flags, reserved, created, digest, key_len, meta_len, payload_len, reserved,
# crc32 of bytes 0..67, last_used
_RECORD_HEADER = struct.Struct("<4sBBHq32sIIQIIq")
RECORD_HEADER_SIZE = _RECORD_HEADER.size  # 80
HEADER_CRC_SPAN = 68          # the header crc covers bytes 0..67 of a record
LAST_USED_OFFSET = 72         # within a record; mutable, so outside both checksums
CHECKSUM_SIZE = 16            # blake2b, digest_size=16
TRAILER_SIZE = CHECKSUM_SIZE + len(COMMIT_MARKER)  # 24

assert HEADER_SIZE == 64 and RECORD_HEADER_SIZE == 80


class FormatError(Exception):
    """The file is not a cache file this version can read (wrong magic or version)."""


@dataclass(frozen=True)
class FileHeader:
    version: int
    generation: bytes
    created: int


class RecordHeader(NamedTuple):     # a tuple: indexing 10 000 records must be cheap
    kind: int
    last_used: int
    created: int
    digest: bytes
    key_len: int
    meta_len: int
    payload_len: int

    @property
    def length(self) -> int:
        return record_length(self.key_len, self.meta_len, self.payload_len)


def _pad8(n: int) -> int:
    return (n + 7) & ~7


def record_length(key_len: int, meta_len: int, payload_len: int) -> int:
    return RECORD_HEADER_SIZE + _pad8(key_len + meta_len + payload_len) + TRAILER_SIZE


def pack_file_header(generation: bytes, created: int) -> bytes:
    head = _FILE_HEADER.pack(FILE_MAGIC, FORMAT_VERSION, HEADER_SIZE, generation, created,
                             bytes(20), 0)[:-4]
    return head + struct.pack("<I", zlib.crc32(head))


def parse_file_header(data: bytes) -> FileHeader:
    """Raises FormatError for a file that is not ours or not this version, ValueError when the
    header is ours but damaged (a writer may then reset the file)."""
    if len(data) < len(FILE_MAGIC) and FILE_MAGIC.startswith(data):
        raise ValueError("truncated file header")
    if data[:len(FILE_MAGIC)] != FILE_MAGIC:
        raise FormatError("not a safekern cache file (bad magic)")
    if len(data) < HEADER_SIZE:
        raise ValueError("truncated file header")
    magic, version, size, generation, created, _, crc = _FILE_HEADER.unpack(data[:HEADER_SIZE])
    if zlib.crc32(data[:HEADER_SIZE - 4]) != crc:
        raise ValueError("file header checksum mismatch")
    if version != FORMAT_VERSION or size != HEADER_SIZE:
        raise FormatError(f"cache format version {version}, this safekern reads "
                          f"version {FORMAT_VERSION}")
    return FileHeader(version, generation, created)




def pack_record(kind: int, digest: bytes, key: bytes, meta: bytes, payload: bytes,
                created: int, last_used: int) -> tuple[bytes, bytes]:
    """(everything but the commit marker, the commit marker): the writer writes them in that
    order, so a record whose marker is on disk was complete before the marker was written."""
    head = _RECORD_HEADER.pack(RECORD_MAGIC, kind, 0, 0, created, digest, len(key), len(meta),
                               len(payload), 0, 0, last_used)
    crc = struct.pack("<I", zlib.crc32(head[:HEADER_CRC_SPAN]))
    head = head[:HEADER_CRC_SPAN] + crc + head[HEADER_CRC_SPAN + 4:]
    body_len = len(key) + len(meta) + len(payload)
    pad = bytes(_pad8(body_len) - body_len)
    h = hashlib.blake2b(head[:LAST_USED_OFFSET], digest_size=CHECKSUM_SIZE)
    for part in (key, meta, payload, pad):
        h.update(part)
    return b"".join((head, key, meta, payload, pad, h.digest())), COMMIT_MARKER


def parse_record_header(data, at: int = 0) -> RecordHeader | None:
    """The header at data[at:], or None when it is not a valid record header."""
    if len(data) < at + RECORD_HEADER_SIZE or data[at:at + 4] != RECORD_MAGIC:
        return None
    (_, kind, _, _, created, digest, key_len, meta_len, payload_len, _, crc,
     last_used) = _RECORD_HEADER.unpack_from(data, at)
    if crc != zlib.crc32(data[at:at + HEADER_CRC_SPAN]) or kind not in (KIND_ENTRY,
                                                                         KIND_TOMBSTONE):
        return None
    return RecordHeader(kind, last_used, created, digest, key_len, meta_len, payload_len)


def check_record(data: bytes) -> str | None:
    """None when `data` (one whole record) is intact, else what is wrong with it."""
    if data[-len(COMMIT_MARKER):] != COMMIT_MARKER:
        return "no commit marker"
    end = len(data) - TRAILER_SIZE
    view = memoryview(data)
    h = hashlib.blake2b(view[:LAST_USED_OFFSET], digest_size=CHECKSUM_SIZE)
    h.update(view[RECORD_HEADER_SIZE:end])
    if h.digest() != data[end:end + CHECKSUM_SIZE]:
        return "checksum mismatch"
    return None


def looks_torn(tail: bytes) -> bool:
    """Whether the bytes after the last complete record (up to a header's worth) can be the
    start of an interrupted append, which writes a valid header first, rather than damage."""
    if len(tail) >= RECORD_HEADER_SIZE:
        return parse_record_header(tail) is not None
    n = min(len(tail), len(RECORD_MAGIC))
    return tail[:n] == RECORD_MAGIC[:n]


def split_record(data: bytes, header: RecordHeader) -> tuple[bytes, bytes, bytes]:
    """(key, meta, payload) of a whole record."""
    a = RECORD_HEADER_SIZE
    b = a + header.key_len
    c = b + header.meta_len
    return data[a:b], data[b:c], data[c:c + header.payload_len]


def _pread_fallback(fd: int, n: int, offset: int) -> bytes:
    # Platforms without os.pread (Windows); callers hold the store's lock.
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, n)


_os_pread = getattr(os, "pread", _pread_fallback)


def pread(fd: int, n: int, offset: int) -> bytes:
    """Exactly the bytes at [offset, offset+n) that exist (fewer at end of file)."""
    chunks = []
    while n > 0:
        chunk = _os_pread(fd, n, offset)
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
        offset += len(chunk)
    return b"".join(chunks)


_SCAN_CHUNK = 8192


def scan(fd: int, start: int, size: int):
    """Walk the records in [start, size); return where the walk stopped.

    Yields plain tuples (offset, header, length, problem): header is None for a damaged region
    [offset, offset + length); problem says why a region or record is not usable, else None.

    Only headers (and commit markers that happen to be in the bytes read) are looked at; a
    record's checksum and commit marker are checked when it is read, so indexing a large file
    costs about one small read per record, and one read serves every record within 8 KiB. A
    damaged record header is skipped by searching for the next valid header at an 8-aligned
    offset. The walk stops at the torn tail: a record that does not fit in the file, or bytes
    after the last valid record that contain no valid header. Use as
    `stop = yield from scan(...)`.
    """
    pos = start
    buf, buf_start = b"", start
    while pos + RECORD_HEADER_SIZE <= size:
        at = pos - buf_start
        if at + RECORD_HEADER_SIZE > len(buf):
            buf, buf_start, at = pread(fd, min(_SCAN_CHUNK, size - pos), pos), pos, 0
        header = parse_record_header(buf, at)
        if header is None:
            nxt = _resync(fd, pos + 8, size)
            if nxt is None:
                return pos
            yield pos, None, nxt - pos, "damaged record header"
            pos = nxt
            continue
        length = header.length
        if pos + length > size:
            return pos
        marker_at = at + length - len(COMMIT_MARKER)
        if marker_at + len(COMMIT_MARKER) <= len(buf) and \
                buf[marker_at:marker_at + len(COMMIT_MARKER)] != COMMIT_MARKER:
            yield pos, header, length, "no commit marker"
        else:
            yield pos, header, length, None
        pos += length
    return pos


_RESYNC_CHUNK = 1 << 16


def _resync(fd: int, pos: int, size: int) -> int | None:
    """The next 8-aligned offset >= pos holding a valid record header, or None."""
    pos = _pad8(pos)
    while pos + RECORD_HEADER_SIZE <= size:
        chunk = pread(fd, min(_RESYNC_CHUNK + RECORD_HEADER_SIZE, size - pos), pos)
        i = chunk.find(RECORD_MAGIC)
        while i != -1 and i < _RESYNC_CHUNK:
            if i % 8 == 0:
                cand = pos + i
                if parse_record_header(pread(fd, RECORD_HEADER_SIZE, cand)) is not None:
                    return cand
            i = chunk.find(RECORD_MAGIC, i + 1)
        pos += _RESYNC_CHUNK
    return None
