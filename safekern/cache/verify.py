"""`verify_file(path)`: check every record of a cache file, checksums included."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import format as fmt


@dataclass
class VerifyReport:
    """What `verify_file` (and `Cache.verify`) found."""
    path: str
    exists: bool
    size: int = 0
    header_problem: str | None = None
    records: int = 0     # every record found, damaged ones included
    live: int = 0        # entries a lookup can hit
    dead: int = 0        # intact records that are superseded entries or deletions
    problems: list = field(default_factory=list)   # (offset, what is wrong)
    torn_tail: int = 0   # bytes after the last complete record: an interrupted or ongoing write

    @property
    def ok(self) -> bool:
        """No damage. A torn tail is not damage: the next write removes it."""
        return self.header_problem is None and not self.problems


def verify_file(path: str) -> VerifyReport:
    """Check every record of the file at `path`, checksums included (reads the whole file)."""
    report = VerifyReport(path, os.path.exists(path))
    if not report.exists:
        return report
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        report.header_problem = f"cannot open: {exc.strerror or exc}"
        return report
    try:
        report.size = os.fstat(fd).st_size
        try:
            fmt.parse_file_header(fmt.pread(fd, fmt.HEADER_SIZE, 0))
        except (fmt.FormatError, ValueError) as exc:
            report.header_problem = str(exc)
            return report
        live: dict[bytes, int] = {}
        scanner = fmt.scan(fd, fmt.HEADER_SIZE, report.size)
        while True:
            try:
                item = next(scanner)
            except StopIteration as stop:
                report.torn_tail = report.size - stop.value
                if report.torn_tail and not fmt.looks_torn(
                        fmt.pread(fd, fmt.RECORD_HEADER_SIZE, stop.value)):
                    report.problems.append((stop.value, "damaged data at the end"))
                    report.torn_tail = 0
                break
            offset, header, length, problem = item
            report.records += 1
            if problem is None:
                problem = fmt.check_record(fmt.pread(fd, length, offset))
            if problem:
                report.problems.append((offset, problem))
                continue
            if header.kind == fmt.KIND_TOMBSTONE:
                live.pop(header.digest, None)
            else:
                live[header.digest] = offset
        report.live = len(live)
        report.dead = report.records - len(report.problems) - report.live
    except OSError as exc:
        report.problems.append((-1, f"read failed: {exc.strerror or exc}"))
    finally:
        os.close(fd)
    return report
