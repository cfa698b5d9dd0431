"""The modes a kernel is measured in, and how one is switched on.

Every mode runs in this one process, switched by setting its SAFEKERN_* variables and calling
`safekern.config.reload()`:

- the ratio checked/unchecked is what the suite exists to measure, and it is only trustworthy
  when the modes run on the same data, in the same process and device state, interleaved
  repetition by repetition, so clock boosts, thermals and other tenants hit every mode alike.
  Worker processes per mode cannot interleave at that grain without an IPC protocol, and would
  each build and upload the multi-gigabyte inputs again;
- a mode's kernels are decorated while its configuration is active (SAFEKERN_CHECKS is read when
  `safekern.jit` decorates) and every repetition runs with it active again (the sync-every-launch
  flag is read at launch, by `safekern.runtime.after_launch`), so this works whether the backend
  reads the configuration at decoration or at launch;
- only compute-sanitizer needs a process of its own (it has to start the interpreter), see
  `sanitizer.py`.
"""
from __future__ import annotations

import contextlib
import os
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Mode:
    name: str
    label: str
    env: tuple          # (variable, value) pairs in effect while the mode runs
    checked: bool


UNCHECKED = Mode("unchecked", "plain numba (SAFEKERN_CHECKS=0)",
                 (("SAFEKERN_CHECKS", "0"), ("SAFEKERN_SYNC_EVERY_LAUNCH", "0")), False)
CHECKED = Mode("checked", "checked, deferred check at sync()",
               (("SAFEKERN_CHECKS", "1"), ("SAFEKERN_SYNC_EVERY_LAUNCH", "0")), True)
SYNC = Mode("sync", "checked, host check after every launch (SAFEKERN_SYNC_EVERY_LAUNCH=1)",
            (("SAFEKERN_CHECKS", "1"), ("SAFEKERN_SYNC_EVERY_LAUNCH", "1")), True)

#: The in-process modes, in report order. "sanitizer" is the fourth mode (a subprocess).
MODES = {m.name: m for m in (UNCHECKED, CHECKED, SYNC)}
SANITIZER = "sanitizer"
ALL_MODE_NAMES = (*MODES, SANITIZER)


class ModeUnavailable(RuntimeError):
    """The mode cannot run in this installation (e.g. the checked backend is missing)."""


@contextlib.contextmanager
def active(mode: Mode, **extra_env):
    """Run the body with `mode`'s SAFEKERN_* variables (and `extra_env`) in effect."""
    from safekern import config

    settings = dict(mode.env, **extra_env)
    saved = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    config.reload()
    try:
        yield mode
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        config.reload()


def _backend_missing(err: ImportError) -> bool:
    return "safekern.backends" in (getattr(err, "name", None) or str(err))


notes: list = []    # one-off remarks for the report (e.g. a fallback that was taken)


def decorate(mode: Mode, fn):
    """`fn` compiled the way `mode` compiles it; call inside `active(mode)`.

    Unchecked is `safekern.jit` under SAFEKERN_CHECKS=0 (numba's own dispatcher), the path users
    take; while the numba backend is not installed it falls back to `numba.cuda.jit` itself.
    """
    import safekern

    if hasattr(fn, "build_for_mode"):       # a real-world kernel: its module, imported anew
        return fn.build_for_mode(mode)
    try:
        return safekern.jit(fn)
    except ImportError as err:
        if not _backend_missing(err):
            raise
        if mode.checked:
            raise ModeUnavailable(f"safekern's numba-cuda backend is not available ({err})") \
                from None
        from numba import cuda

        note = ("unchecked kernels were built with numba.cuda.jit directly: safekern.jit "
                f"could not be imported ({err})")
        if note not in notes:
            notes.append(note)
        return cuda.jit(fn)


def app_sync(mode: Mode) -> None:
    """The one synchronisation an application does after its loop of launches."""
    if mode.checked:
        import safekern

        safekern.sync()
    else:
        from numba import cuda

        cuda.synchronize()


def pending_count() -> int | None:
    """Failure sources marked as launched and not yet checked (None if unknown)."""
    try:
        from safekern import runtime

        return len(runtime.pending_sources())
    except Exception:       # an older runtime; only used for a sanity note
        return None


def plain_pending() -> bool:
    """A plain launch (the user's own kernel, for a launch that can record no failure) ran
    since the last sync(): checked mode launched it, and it leaves nothing to check."""
    try:
        from safekern import runtime

        return bool(getattr(runtime, "_plain_launched", ()))
    except Exception:       # an older runtime
        return False


def _record_dict(record) -> dict:
    if isinstance(record, dict):
        return dict(record)
    for method in ("as_dict", "_asdict", "to_dict"):
        if callable(getattr(record, method, None)):
            return dict(getattr(record, method)())
    if hasattr(record, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(record)
    if hasattr(record, "__dict__"):
        return {k: v for k, v in vars(record).items() if not k.startswith("_")}
    return {"record": repr(record)}


def _status(rec: dict) -> str:
    for key in ("status", "state", "decision", "kind"):
        value = rec.get(key)
        if isinstance(value, str) and value:
            value = value.lower()
            if value.startswith("elim") or value in {"removed", "proved", "proven", "safe"}:
                return "eliminated"     # "safe": the C front ends' word for a proven access
            if value == "unchecked":
                return "unchecked"      # the C front ends could not check it (reason given)
            if value.startswith("check") or value in {"kept", "emitted"}:
                return "checked"
            if value.startswith("hoist"):
                return "hoisted"
            if value == "proven at launch":
                return "launch"         # no check in launches whose predicate holds
    if rec.get("eliminated") is True:
        return "eliminated"
    if rec.get("hoisted") is True:
        return "hoisted"
    if rec.get("checked") is not None:
        return "checked" if rec.get("checked") else "eliminated"
    return "unknown"


def check_summary(kernel) -> dict | None:
    """Counts of checked / eliminated sites from the kernel's `check_report()`, if it has one."""
    report = getattr(kernel, "check_report", None)
    if not callable(report):
        return None
    try:
        records = [_record_dict(r) for r in (report() or [])]
    except Exception as err:
        return {"error": f"check_report() raised {type(err).__name__}: {err}"}
    for rec in records:
        for key, value in list(rec.items()):
            if not isinstance(value, (str, int, float, bool, type(None), list, dict)):
                rec[key] = repr(value)
    statuses = Counter(_status(r) for r in records)
    reasons = Counter(str(r.get("reason") or r.get("why") or "")
                      for r in records if _status(r) != "checked")
    reasons.pop("", None)
    return {"sites": len(records), "checked": statuses.get("checked", 0),
            "eliminated": statuses.get("eliminated", 0), "hoisted": statuses.get("hoisted", 0),
            "launch": statuses.get("launch", 0), "unchecked": statuses.get("unchecked", 0), "unknown": statuses.get("unknown", 0),
            "reasons": dict(reasons), "records": records}


__all__ = ["Mode", "MODES", "UNCHECKED", "CHECKED", "SYNC", "SANITIZER", "ALL_MODE_NAMES",
           "ModeUnavailable", "active", "decorate", "app_sync", "pending_count",
           "check_summary", "notes"]
