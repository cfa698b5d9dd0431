"""`check_report()`: what safekern does with every check site, the same type for all backends.

    report = kernel.check_report()      # numba, CuPy and OpenCL alike
    print(report)                       # a table: file:line:col, function, status, access, why
    report.checked / report.eliminated / report.unchecked / report.accesses
    for e in report: e.status is Status.CHECKED, e.reason says why it is not

A `ReportEntry` also reads like a dict of its fields (`e["lineno"]`, `e["status"]`,
`dict(e)`; `e["line"]`, the key of numba's old dict rows, too), and `Status.ELIMINATED` also
answers to "safe", the C reports' old word.
"""
from __future__ import annotations

import enum
from dataclasses import asdict, dataclass

from . import check_kinds
from .check_kinds import ACCESS_KINDS


class Status(str, enum.Enum):
    """What happens to one check site at run time."""

    CHECKED = "checked"                 # a check runs every time the access does
    HOISTED = "hoisted"                 # checked once, before the loop it sits in
    ELIMINATED = "eliminated"           # proven in bounds from the source: no check
    PROVEN_AT_LAUNCH = "proven at launch"   # no check in launches whose predicate holds
    UNCHECKED = "unchecked"             # cannot be checked (reason says why)
    RACE_CHECKED = "checked at launch"  # races: each launch proven race-free or refused
    MAY_RACE = "may race"               # races: the accesses are not known

    def __eq__(self, other):
        if isinstance(other, str) and not isinstance(other, Status):
            return self.value == _SYNONYMS.get(other, other)
        return self is other

    def __hash__(self):
        return hash(self.value)

    def __str__(self):
        return self.value

    @classmethod
    def _missing_(cls, value):
        if value in _SYNONYMS:
            return cls(_SYNONYMS[value])
        return None


#: Older words for a status, still understood (the C reports said "safe").
_SYNONYMS = {"safe": "eliminated"}

#: ReportEntry attribute of each key an entry answers to as a dict: its fields by their names
#: (docs/quickstart.md), "label" (check_kinds), and "line", the key of numba's old dict rows.
_FIELDS = ("function", "lineno", "col", "text", "array", "status", "reason", "kind", "code",
           "predicate", "filename")
_DICT_KEYS = {**{name: name for name in _FIELDS}, "line": "lineno", "label": "label"}


@dataclass(frozen=True)
class ReportEntry:
    """One check site of the user's source (an access, an assert, a division, a race verdict)
    and what safekern does with it."""

    function: str
    lineno: int
    col: int
    text: str           # the access as written (whitespace collapsed); "" where not known
    array: str          # the array/buffer it is checked against ("" otherwise)
    status: Status
    reason: str         # why eliminated / proven / unchecked ("" for checked)
    kind: str = "bounds"    # a check_kinds.KINDS name: load/store/atomic (numba), bounds (C),
                            # assert, raise, zero_division, race
    code: int | None = None     # the failure code of a checked site (numba)
    predicate: str = ""         # the launch predicate that proves it (PROVEN_AT_LAUNCH)
    #: the file the function is in, where it is not the report's (a device function's)
    filename: str = ""

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))

    @property
    def label(self) -> str:
        """What the report says for the kind, the same word for every backend ("bounds" for
        every memory access, whether the front end knows its direction or not)."""
        return check_kinds.label(self.kind)

    # It reads like a dict: entry["lineno"], entry["status"], dict(entry); entry["line"] too
    # (numba's report was a list of dicts with that key).
    def __getitem__(self, key):
        try:
            return getattr(self, _DICT_KEYS[key])
        except KeyError:
            raise KeyError(key) from None

    def get(self, key, default=None):
        return self[key] if key in _DICT_KEYS else default

    def keys(self):
        return _DICT_KEYS.keys()

    def as_dict(self) -> dict:
        d = asdict(self)
        d["status"] = self.status.value
        return d


class CheckReport(list):
    """Every check site of a kernel or program, in source order.

    A list of ReportEntry with views by status (`checked`, `eliminated` (also `safe`),
    `hoisted`, `proven_at_launch`, `unchecked`) and by kind (`accesses`); str() is a table.
    """

    def __init__(self, entries=(), *, filename: str = "", checks: bool = True):
        super().__init__(entries)
        self.filename = filename
        self.checks = checks

    def _with(self, status):
        return [e for e in self if e.status is status]

    @property
    def checked(self):
        return self._with(Status.CHECKED)

    @property
    def eliminated(self):
        return self._with(Status.ELIMINATED)

    safe = eliminated

    @property
    def hoisted(self):
        return self._with(Status.HOISTED)

    @property
    def proven_at_launch(self):
        return self._with(Status.PROVEN_AT_LAUNCH)

    @property
    def unchecked(self):
        return self._with(Status.UNCHECKED)

    @property
    def accesses(self):
        return [e for e in self if e.kind in ACCESS_KINDS]

    def counts(self, entries=None) -> dict:
        entries = self if entries is None else entries
        return {s: n for s in Status if (n := sum(e.status is s for e in entries))}

    def __str__(self) -> str:
        if not self.checks:
            return (f"{self.filename}: checks are off (SAFEKERN_CHECKS=0): the program was "
                    "built unchanged and no access is checked")

        def summary(entries):
            n = self.counts(entries)
            words = [f"{n.get(Status.CHECKED, 0)} checked",
                     f"{n.get(Status.ELIMINATED, 0)} proven safe"]
            words += [f"{n[s]} {s.value}" for s in (Status.HOISTED, Status.PROVEN_AT_LAUNCH)
                      if s in n]
            words.append(f"{n.get(Status.UNCHECKED, 0)} unchecked")
            words += [f"{n[s]} {s.value}" for s in (Status.RACE_CHECKED, Status.MAY_RACE)
                      if s in n]
            return ", ".join(words)

        accesses = self.accesses
        others = [e for e in self if e.kind not in ACCESS_KINDS]
        head = f"{self.filename}: {len(accesses)} accesses: {summary(accesses)}"
        if others:
            head += f"; {len(others)} other checks: {summary(others)}"
        rows = [head]
        for e in self:
            why = f"  ({e.reason})" if e.reason else ""
            if e.predicate and e.predicate not in e.reason:
                why += f"  [if {e.predicate}]"
            kind = "" if e.kind in ACCESS_KINDS else f"  [{e.label}]"
            what = e.text or e.array
            rows.append(f"  {e.filename or self.filename}:{e.lineno}:{e.col + 1}  "
                        f"{e.function:<16} "
                        f"{e.status.value:<10} {what}{kind}{why}")
        return "\n".join(rows)

    def __repr__(self) -> str:
        parts = ", ".join(f"{n} {s.value}" for s, n in self.counts().items())
        return f"<CheckReport {self.filename}: {parts or 'empty'}>"
