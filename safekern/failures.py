"""Failure codes, the failure table, and the layout of the per-device failure buffer.

A check site gets a failure code that is a stable hash of where the site is (file, line, column,
function, array, axis). Stable codes mean a binary compiled in one process (and kept in the
persistent cache) reports correctly in another: the table is rebuilt by the rewrite, which always
runs, and the binary is reused.

Every backend uses the same buffer: `BUFFER_LEN` signed 64-bit integers per device. A failing
check compare-and-swaps slot CODE from 0 to its code; only the winner writes the arguments.
"""
from __future__ import annotations

import contextlib
import hashlib
import threading
from dataclasses import dataclass

from . import call_chains, check_kinds
from .check_kinds import MESSAGE_KINDS
from .errors import BoundsError, KernelError, kernel_exception_class

# Slots of the failure buffer (int64 each).
CODE = 0          # 0: no failure; else the failing site's code
INDEX = 1         # the index as the user wrote it
SIZE = 2          # the extent of that axis
AXIS = 3          # the axis
THREAD = 4        # 4, 5, 6: threadIdx x, y, z (OpenCL: local id)
BLOCK = 7         # 7, 8, 9: blockIdx x, y, z (OpenCL: group id)
SKIPPED = 10      # launches the prelude skipped while a failure was pending
UNSIGNED = 11     # bit k set: slot 1 + k holds an unsigned 64-bit value (uint64 >= 2**63
                  # reads back negative from the int64 slot)
ARGS = (1, 2, 3)  # other failures (assert, raise, division by zero): their message's values
BUFFER_LEN = 16

CODE_BITS = 62


@dataclass(frozen=True)
class FailureSite:
    """Everything the host needs to turn a failure code into a message."""

    code: int
    kind: str                 # a check_kinds.KINDS name: "bounds", "assert", "call", ...
    kernel: str               # the function that holds the access
    filename: str
    lineno: int               # absolute line in the user's file (1-based)
    source_line: str
    col: int | None           # 0-based columns of the index on that line (caret)
    end_col: int | None
    array: str | None         # the array as written in the source
    axis: int | None          # None where only the launch knows it (e.g. after `...`)
    #: For "assert", "raise" and "zero_division": the message, a str.format template whose
    #: fields {0} {1} {2} are the integer values the kernel recorded (slots ARGS).
    message: str | None = None
    #: For "raise": the raised class as "module:qualname" (imported again on the host).
    exception: str | None = None
    #: For "call" (a call of a device function, call_chains.py): the function called, and
    #: whether the caller (`kernel`) is a kernel; the file that holds the function called where
    #: it is not `filename` (a numba device function of another module), else None.
    callee: str | None = None
    in_kernel: bool = False
    callee_file: str | None = None

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def site_code(*fields) -> int:
    """A stable, nonzero 62-bit code for a check site."""
    h = hashlib.blake2b(repr(fields).encode(), digest_size=8).digest()
    code = int.from_bytes(h, "little") & ((1 << CODE_BITS) - 1)
    return code or 1


def code32(code: int) -> int:
    """A 31-bit positive form of a code, for devices without 64-bit atomics."""
    return (code & 0x7FFFFFFF) or 1


class FailureTable:
    """Process-wide map from failure code to site. Registering the same site twice is fine."""

    def __init__(self):
        self._sites: dict[int, FailureSite] = {}
        self._by32: dict[int, FailureSite] = {}
        self._lock = threading.Lock()

    def register(self, site: FailureSite) -> FailureSite:
        with self._lock:
            old = self._sites.get(site.code)
            if old is not None and old != site:
                # Same hash for two different sites: keep the first; the message may then name
                # the other site. 62-bit codes make this practically impossible.
                return old
            self._sites[site.code] = site
            self._by32.setdefault(code32(site.code), site)
            return site

    def register_all(self, sites) -> None:
        """Register what a rewrite found (its `failure_sites`): what the backend does once per
        kernel it builds or loads, so a failure code read back from a device can be named."""
        for site in sites:
            self.register(site)

    def lookup(self, code: int) -> FailureSite | None:
        site = self._sites.get(code)
        if site is None:
            site = self._by32.get(code)
        return site

    def __len__(self) -> int:
        return len(self._sites)

    def __iter__(self):
        return iter(list(self._sites.values()))


TABLE = FailureTable()


def exception_from_buffer(values, *, source: str = "") -> KernelError | None:
    """The exception for a failure buffer read back from a device, or None if there is none.

    `values` is a sequence of at least BUFFER_LEN ints. `source` names the device for the rare
    case that a code is unknown to this process.
    """
    code = int(values[CODE])
    if code == 0:
        return None
    values = unsigned_values(values)
    thread = tuple(int(v) for v in values[THREAD:THREAD + 3])
    block = tuple(int(v) for v in values[BLOCK:BLOCK + 3])
    skipped = int(values[SKIPPED])
    site = TABLE.lookup(code)
    chain = {}
    if site is None:        # a check inside a device function: its code XOR the call chain
        found = call_chains.resolve(code, TABLE)
        if found is not None:
            site, frames = found
            chain = {"call_chain": frames}
            if not call_chains.truncated(frames):
                chain["called_from"] = (frames[-1].kernel,)
    if site is None:
        return KernelError(
            f"a check failed with unknown failure code {code:#x}{' on ' + source if source else ''}"
            " (was the kernel compiled by another process?)",
            thread=thread, block=block, skipped_launches=skipped)
    kind = check_kinds.get(site.kind)
    if kind.templated:
        return _message_failure(site, kind, [int(values[k]) for k in ARGS], thread=thread,
                                block=block, skipped_launches=skipped, **chain)
    axis = site.axis if site.axis is not None else int(values[AXIS])
    if kind.exception is BoundsError:
        return BoundsError(
            array=site.array, axis=axis, index=int(values[INDEX]), size=int(values[SIZE]),
            kernel=site.kernel, filename=site.filename, lineno=site.lineno,
            source_line=site.source_line, thread=thread, block=block,
            skipped_launches=skipped, col=site.col, end_col=site.end_col, **chain)
    return KernelError(
        kind.message.format(kind=site.kind), kernel=site.kernel, filename=site.filename,
        lineno=site.lineno, source_line=site.source_line, thread=thread, block=block,
        skipped_launches=skipped, col=site.col, end_col=site.end_col, **chain)


def slot_value(value: int) -> tuple[int, bool]:
    """(what an int64 slot holds, whether it is an unsigned value's two's complement) for a
    value recorded in slots 1..3; the bit goes to slot UNSIGNED."""
    value = int(value)
    if value >= 1 << 63:
        return value - (1 << 64), True
    return value, False


def unsigned_values(values) -> list[int]:
    """The buffer with slots 1..3 read as unsigned where slot UNSIGNED says so."""
    values = [int(v) for v in values]
    bits = values[UNSIGNED] if len(values) > UNSIGNED else 0
    for k in range(3):
        if bits >> k & 1 and values[1 + k] < 0:
            values[1 + k] += 1 << 64
    return values


def _message_failure(site: FailureSite, kind, args, **where) -> KernelError:
    """The exception for an assert, a raise or a division by zero, its message filled in."""
    message = kind.failure_message(site.message, args)
    location = dict(kernel=site.kernel, filename=site.filename, lineno=site.lineno,
                    source_line=site.source_line, col=site.col, end_col=site.end_col, **where)
    if kind.exception is not None:
        return kind.exception(message, **location)
    raised = _import_class(site.exception)
    if raised is None:
        name = (site.exception or "exception").rpartition(":")[2]
        return KernelError(f"{name}: {message}" if message else name, **location)
    return kernel_exception_class(raised)(message or raised.__name__, **location)


def _import_class(name: str | None):
    """"module:qualname" -> the class, if this process can import it (else None)."""
    if not name or ":" not in name:
        return None
    import importlib
    import sys

    module_name, _, qualname = name.partition(":")
    try:
        obj = sys.modules.get(module_name) or importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception:             # noqa: BLE001 - any failure: the class is not reachable here
        return None
    return obj if isinstance(obj, type) and issubclass(obj, BaseException) else None


__all__ = ["FailureSite", "FailureTable", "TABLE", "site_code", "code32",
           "exception_from_buffer", "CODE", "INDEX", "SIZE", "AXIS", "THREAD", "BLOCK",
           "SKIPPED", "UNSIGNED", "ARGS", "MESSAGE_KINDS", "BUFFER_LEN", "slot_value",
           "unsigned_values"]
