"""What the checked ElementwiseKernel and ReductionKernel share: where the user made the kernel,
its raw parameters, and each code string checked and its failure sites registered."""
from __future__ import annotations

import os
import sys

from ... import config, runtime
from ...failures import TABLE, FailureSite, site_code
from ...report import CheckReport, ReportEntry, Status
from . import sync as cupy_sync
from .program import _cupy, failure_source
from .raw_sites import find_sites, insert_checks

#: the hidden input that carries the device's failure buffer (`raw int64 _sk_fb`)
FB = "_sk_fb"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def call(plain, checked_kernel, args, kwargs):
    """A user kernel's launch: CuPy's own kernel with checks off (or none made) or with an
    argument count CuPy refuses (its TypeError), else the checked one with the device's
    failure buffer as the hidden input after the user's inputs."""
    nin = plain.nin
    if checked_kernel is None or not config.get().checks or len(args) not in (nin, plain.nargs):
        return plain(*args, **kwargs)
    cupy_sync.install()
    source = failure_source(_cupy().cuda.runtime.getDevice())
    out = checked_kernel(*args[:nin], source.buffer, *args[nin:], **kwargs)
    runtime.after_launch(source)
    return out


def caller() -> tuple[str, int]:
    """The user's file and line: the first frame outside safekern."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0
    return frame.f_code.co_filename, frame.f_lineno


def raw_names(params: str) -> list[str]:
    """Names of the `raw` parameters of a CuPy parameter list ("raw T x, T y")."""
    out = []
    for item in (params or "").split(","):
        words = item.split()
        if len(words) >= 2 and "raw" in words[:-2]:
            out.append(words[-1])
    return out


def with_fb(in_params: str) -> str:
    """The inputs with the failure buffer after the user's."""
    fb = f"raw int64 {FB}"
    return f"{in_params}, {fb}" if (in_params or "").strip() else fb


def checked(kind: str, name: str, made_at, part: str, code, raw):
    """(code with its raw subscripts checked, their failure sites, registered) for one code
    string (`part`: "operation", "map_expr", ...) of a `kind` kernel made at `made_at`."""
    if not isinstance(code, str):
        return code, []
    path, line = made_at
    where = f"<{part} of {kind} {name!r} made at {path}:{line}>"
    sites = find_sites(code, raw)
    lines = code.split("\n")
    failures = [FailureSite(
        code=site_code("cupy-" + kind, where, s.lineno, s.col, name, s.name), kind="bounds",
        kernel=name, filename=where, lineno=s.lineno, source_line=lines[s.lineno - 1],
        col=s.col, end_col=s.end_col, array=s.name, axis=None) for s in sites]
    TABLE.register_all(failures)
    return insert_checks(code, sites, [f.code for f in failures]), failures


def _text(site) -> str:
    """`x[i + 1]`: the subscript as written (its line where it spans lines)."""
    if site.end_col is None:
        return site.source_line.strip()
    return f"{site.array}[{site.source_line[site.col:site.end_col]}]"


def report(kind: str, name: str, made_at, sites) -> CheckReport:
    """The check report of a user kernel: each raw subscript, checked (what else the kernel
    reads is one element of each argument, in bounds by construction)."""
    entries = [ReportEntry(name, s.lineno, s.col, _text(s), s.array, Status.CHECKED, "",
                           code=s.code) for s in sites]
    return CheckReport(entries, filename=f"{kind} {name!r} made at {made_at[0]}:{made_at[1]}")


__all__ = ["FB", "caller", "raw_names", "with_fb", "checked", "report"]
