"""Failure sites of PyOpenCL's library programs moved to the user's code string.

PyOpenCL writes some user expressions into its programs as macro definitions and uses the
macro inside its own kernel: a `ReductionKernel`'s `map_expr="x[i + 5]"` becomes
`#define PCL_READ_AND_MAP(i) (x[i + 5])`, used as `PCL_REDUCE(pcl_acc, PCL_READ_AND_MAP(i))`
in PyOpenCL's loop; a scan's `input_expr` becomes `#define psc_INPUT_EXPR(i) (...)`. The C rewrite
checks the access where the macro is used, and that line is PyOpenCL's, not the user's. For
PyOpenCL's library programs only (a user's own macros are best reported where they are used), a
site on a line that uses exactly one of the program's own macros whose body subscripts an array
is reported at that definition, the carets under the subscript:

    sites = at_user_code(source, sites)
"""
from __future__ import annotations

import dataclasses
import re

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)]*\))?[ \t]*(.*)$")
_SUBSCRIPT = re.compile(r"[A-Za-z_]\w*\s*\[")


def library_program(filename: str) -> bool:
    """Whether `filename` names a program PyOpenCL's library built (hooks.AnyProgram)."""
    return filename.startswith("<pyopencl.")


def _definitions(lines) -> dict:
    """name -> (line number, the subscript's columns on it) for macros whose body subscripts."""
    out = {}
    for n, text in enumerate(lines, 1):
        m = _DEFINE.match(text)
        if not m:
            continue
        body_at = m.start(3)
        sub = _SUBSCRIPT.search(text, body_at)
        if sub is None:
            continue
        depth, end = 0, None
        for k in range(sub.end() - 1, len(text)):
            depth += {"[": 1, "]": -1}.get(text[k], 0)
            if depth == 0:
                end = k + 1
                break
        out[m.group(1)] = (n, sub.start(), end if end is not None else len(text))
    return out


def at_user_code(source: str, sites: list) -> list:
    lines = source.split("\n")
    defs = _definitions(lines)
    if not defs:
        return sites
    uses = re.compile(r"\b(" + "|".join(map(re.escape, defs)) + r")\b")
    out = []
    for site in sites:
        text = lines[site.lineno - 1] if 1 <= site.lineno <= len(lines) else ""
        names = {m.group(1) for m in uses.finditer(text)} if site.kind == "bounds" and \
            not _DEFINE.match(text) else set()
        if len(names) == 1:
            lineno, col, end = defs[names.pop()]
            site = dataclasses.replace(site, lineno=lineno, source_line=lines[lineno - 1],
                                       col=col, end_col=end)
        out.append(site)
    return out


__all__ = ["at_user_code", "library_program"]
