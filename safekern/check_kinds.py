"""The check kinds: what each kind of check site is, in one table for every backend.

A check site (a `failures.FailureSite` the device can report, a `report.ReportEntry` the
report lists) has a kind, a string that travels through the persistent cache and the report's
dict form. This module is the one place that says what a kind means:

    kind = check_kinds.get(site.kind)
    kind.exception      # what a failure of it raises (None for "raise": the user's own class)
    kind.message        # the message where the site carries none
    kind.label          # the word the report's table says (the same for numba and C)
    kind.access         # a memory access (CheckReport.accesses, "N accesses" in the table)
    kind.helpers        # the names of the checking helpers of the rewritten code, by language

The memory access kinds differ by front end: numba's rewrite knows the direction of an access
("load", "store", "atomic"); the C front ends do not ("bounds"). They fail the same way and
reports label them alike ("bounds"); `ReportEntry.kind` keeps the finer word where known.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import BoundsError, KernelAssertionError, KernelError, KernelZeroDivisionError


@dataclass(frozen=True)
class CheckKind:
    """One kind of check site."""

    name: str
    label: str                      # what a report's table says for it
    access: bool = False            # a memory access, checked against an extent
    #: What a failure raises: None for "raise" (the class the kernel raised, from the site) and
    #: for kinds that never fail on their own ("call": a frame of a call chain; "race": checked
    #: on the host at launch).
    exception: type | None = None
    #: A failure's message where the site has none of its own; `{kind}` is the kind's name.
    message: str = "{kind} check failed"
    #: The site's message is a str.format template over the values the kernel recorded.
    templated: bool = False
    #: Names of the helpers the rewritten code calls to check this kind, by language ("python":
    #: the numba rewrite, frontend/python/names.py; "c": the CUDA C and OpenCL C preludes).
    #: A name that ends in "_" is a prefix (one helper per operation).
    helpers: dict = field(default_factory=dict, compare=False, hash=False)

    def failure_message(self, template: str | None, values) -> str:
        """The message of a failure of this kind: the site's template filled in with the
        values the kernel recorded, else the kind's own message."""
        if self.templated:
            try:
                message = (template or "").format(*values)
            except (IndexError, KeyError, ValueError):
                message = f"{template} (values {list(values)})"
            if message:
                return message
        return self.message.format(kind=self.name)


_C_BOUNDS = ("__sk_ix", "__sk_ixu", "__sk_ix32", "__sk_ixb", "__sk_fp", "__sk_at")
_KINDS = (
    CheckKind("bounds", "bounds", access=True, exception=BoundsError,
              helpers={"c": _C_BOUNDS}),
    CheckKind("load", "bounds", access=True, exception=BoundsError,
              helpers={"python": ("_sk_load", "_sk_loadv")}),
    CheckKind("store", "bounds", access=True, exception=BoundsError,
              helpers={"python": ("_sk_store",)}),
    CheckKind("atomic", "bounds", access=True, exception=BoundsError,
              helpers={"python": ("_sk_atomic_",)}),
    CheckKind("assert", "assert", exception=KernelAssertionError, message="assertion failed",
              templated=True, helpers={"python": ("_sk_fail",), "c": ("__sk_afail",)}),
    CheckKind("raise", "raise", exception=None, message="", templated=True,
              helpers={"python": ("_sk_fail",)}),
    CheckKind("zero_division", "zero_division", exception=KernelZeroDivisionError,
              message="", templated=True,
              helpers={"python": ("_sk_div_",), "c": ("__sk_div", "__sk_mod", "__sk_dvs")}),
    CheckKind("call", "call", helpers={"c": ("__sk_cs",)}),
    CheckKind("race", "race"),
)

KINDS: dict[str, CheckKind] = {k.name: k for k in _KINDS}

#: The kinds that are memory accesses.
ACCESS_KINDS = frozenset(k.name for k in _KINDS if k.access)
#: The kinds whose failure message is the site's template over the recorded values.
MESSAGE_KINDS = tuple(k.name for k in _KINDS if k.templated)

_UNKNOWN: dict[str, CheckKind] = {}


def get(name: str) -> CheckKind:
    """The kind called `name`; a kind this version does not know (a newer cache entry's)
    fails as a plain KernelError with its name in the message and is labelled by its name."""
    kind = KINDS.get(name)
    if kind is None:
        kind = _UNKNOWN.get(name)
        if kind is None:
            kind = _UNKNOWN.setdefault(name, CheckKind(name, name, exception=KernelError))
    return kind


def label(name: str) -> str:
    """What a report says for a site of kind `name`."""
    return get(name).label


def is_access(name: str) -> bool:
    return name in ACCESS_KINDS


def helpers(language: str) -> tuple[str, ...]:
    """Every checking helper's name (or name prefix) of one language's rewritten code."""
    out: list[str] = []
    for kind in _KINDS:
        for name in kind.helpers.get(language, ()):
            if name not in out:
                out.append(name)
    return tuple(out)


__all__ = ["CheckKind", "KINDS", "ACCESS_KINDS", "MESSAGE_KINDS", "get", "label", "is_access",
           "helpers"]
