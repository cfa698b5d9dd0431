"""A driver's build log, read back at the user's lines.

Drivers that honour the `#line` of the rewritten source (NVRTC, clang-based OpenCL compilers)
already name the user's file and line; others ("<kernel>", "<source>", a temporary file) count
the lines of the rewritten text, prelude included. `map_build_log` rewrites both kinds to the
user's lines and picks out the first error:

    log, first = map_build_log(driver_log, ps.filename, prelude_lines(text), line_map)
    first.filename, first.lineno, first.col, first.message   # None when the log names no error

A source with `#line` directives of its own (line_map.py) is reported at the places they name,
as the driver would report the user's own source: names those directives give are the user's
too, and a driver that ignores `#line` has its lines mapped through them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class BuildError:
    lineno: int | None
    col: int | None
    message: str
    filename: str | None = None     # the file named (a `#line` of the source may name another)


_LOC = re.compile(r'(?P<file>"[^"\n]*"|<[^>\n]*>|[^\s:"()]+):(?P<line>\d+):(?:(?P<col>\d+):)?')
_EDG = re.compile(r'"(?P<file>[^"\n]+)", line (?P<line>\d+)')
_ERROR_WORD = re.compile(r"\b(?:fatal )?error\b\s*:?\s*", re.IGNORECASE)


def map_build_log(log: str, filename: str, n_prelude: int, line_map=None):
    """Rewrite a driver's build log to the user's lines; also its first error in the source.

    Locations that name `filename` (or a file the source's own `#line` names: `line_map`, a
    line_map.LineMap) already follow the #line directives; other names of the main source
    (drivers that ignore #line: "<kernel>", "<source>", a temporary file) count lines of the
    rewritten text, so the prelude is subtracted (and the source's own #line followed).
    Headers (.h) keep their lines.
    """
    names = sorted({filename} | set(line_map.names if line_map else ()), key=len, reverse=True)
    files = "|".join(re.escape(n) for n in names)
    own = re.compile(f"(?P<file>{files})" +
                     r":(?P<line>\d+)(?::(?P<col>\d+))?(?: <Spelling=[^>]*>)?:")
    own_edg = re.compile(f'"(?P<file>{files})"' + r", line (?P<line>\d+)(?P<col>)")

    def presumed(raw):
        if line_map:
            return line_map.presumed(raw - n_prelude)
        return filename, raw - n_prelude

    first = None
    out_lines = []
    for line in (log or "").splitlines():
        m = own.search(line) or own_edg.search(line)
        user_line = user_file = None
        if m:
            user_file, user_line = m.group("file"), int(m.group("line"))
        elif _EDG.search(line):
            # '"<kernel>", line 62: error: ...' (EDG-style front ends)
            e = _EDG.search(line)
            raw = int(e.group("line"))
            if raw > n_prelude and not e.group("file").endswith((".h", ".hpp", ".cuh")):
                user_file, user_line = presumed(raw)
                line = f'{line[:e.start()]}"{user_file}", line {user_line}{line[e.end():]}'
                m = own_edg.search(line)
        else:
            m = _LOC.search(line)
            if m:
                name = m.group("file").strip('"')
                raw = int(m.group("line"))
                if not name.endswith((".h", ".hpp", ".cuh", ".clh")) and raw > n_prelude:
                    user_file, user_line = presumed(raw)
                    col = m.group("col")
                    line = (f"{line[:m.start()]}{user_file}:{user_line}:"
                            f"{col + ':' if col else ''}{line[m.end():]}")
                    m = own.search(line)
                else:
                    m = None
        if first is None and _ERROR_WORD.search(line):
            if m is not None:
                col = m.group("col")
                msg = _ERROR_WORD.sub("", line[m.end():].lstrip(": "), count=1).strip() or \
                    line.strip()
                first = BuildError(user_line, int(col) - 1 if col else None, msg, user_file)
            elif "error" in line.lower() and not line.strip().lower().startswith(
                    ("1 error", "device")):
                first = BuildError(None, None, _ERROR_WORD.sub("", line, count=1).strip())
        out_lines.append(line)
    return "\n".join(out_lines), first


__all__ = ["map_build_log", "BuildError"]
