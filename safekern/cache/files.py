"""Writing whole files: the temporary-file-then-replace dance, and cleaning up after it.

Every function here runs under the cache's write lock (store.py holds it); that is what makes
any temporary file found by `sweep_orphans` an orphan of a writer that died.
"""
from __future__ import annotations

import errno
import glob
import logging
import os
import tempfile
import time

from . import format as fmt

log = logging.getLogger("safekern.cache")


def _pwrite_fallback(fd: int, data, offset: int) -> int:
    # Platforms without os.pwrite (Windows); callers hold the store's lock.
    os.lseek(fd, offset, os.SEEK_SET)
    return os.write(fd, data)


pwrite = getattr(os, "pwrite", _pwrite_fallback)


def pwrite_all(fd: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        n = pwrite(fd, view, offset)
        if n <= 0:
            raise OSError(errno.EIO, "short write")
        view = view[n:]
        offset += n


def fsync_dir(directory: str) -> None:
    """Make a rename in `directory` durable (where the platform allows opening directories)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_prefix(path: str) -> str:
    return f".{os.path.basename(path)}."


def sweep_orphans(path: str) -> None:
    """Remove temporary files left by compactions whose writer died."""
    pattern = os.path.join(glob.escape(os.path.dirname(path)),
                           glob.escape(_temp_prefix(path)) + "*.tmp")
    for stale in glob.glob(pattern):
        try:
            os.unlink(stale)
            log.info("removed %s, left by an interrupted compaction", stale)
        except OSError:
            pass


def replace_with(path: str, records) -> int:
    """Atomically replace `path` by a new file: a header with a new generation, then `records`
    (whole records, as bytes). Returns how many records were written. On any error the old file
    is untouched and no temporary file is left."""
    directory = os.path.dirname(path)
    sweep_orphans(path)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=directory)
    count = 0
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)
        offset = fmt.HEADER_SIZE
        pwrite_all(fd, fmt.pack_file_header(os.urandom(16), int(time.time())), 0)
        for data in records:
            pwrite_all(fd, data, offset)
            offset += len(data)
            count += 1
        os.fsync(fd)           # the data must be on disk before the rename can be
        os.close(fd)
        fd = None
        os.replace(tmp, path)
    except BaseException:
        if fd is not None:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(directory)
    return count
