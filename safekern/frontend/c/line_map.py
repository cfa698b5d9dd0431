"""The user's own `#line` directives: where the compiler says each line of a C source is.

A C source may name other lines and files for its text -- `#line 100 "kern.cu"` (generated
code, sources that prefix themselves with one), `#line 7` (the file's name kept) or the GNU
form `# 7 "kern.cu" 2` -- and compilers report diagnostics at those *presumed* places. Both C
dialects read every place they report (failure sites, check reports, safekern's own errors,
build logs) through this one map, so safekern names the places the compiler would; the text
shown under a message stays the physical line the user wrote there.

    lm = LineMap.of(source, filename)
    lm.presumed(physical_lineno)      # -> (filename, lineno) as the compiler reports it
    lm.physical(filename, lineno)     # -> the physical line a reported place is on, else None
    lm.names                          # the file names the directives introduce

Directives are found in the text with comments blanked out; `#line` inside `#if 0` or written
through a macro is read as if it were live (libclang's bindings expose only expansion
locations, which ignore `#line` altogether).
"""
from __future__ import annotations

import bisect
import re

from ...memo import BoundedMemo
from .messages import c_string

# comments blanked (string and character literals kept as they are, so that a `/*` inside
# one opens nothing); newlines stay where they were
_COMMENTS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*(?:line[ \t]+)?(?P<line>\d+)'
                        r'(?:[ \t]+(?P<file>"(?:\\.|[^"\\])*"))?(?:[ \t]+\d+)*[ \t]*$')


# the maps of the last few texts (every pass of a rewrite asks)
_MAPS = BoundedMemo(16)


class LineMap:
    """The presumed (file, line) of each physical line of one source text."""

    def __init__(self, text: str, filename: str):
        self.filename = filename
        # (physical line of the first line the directive governs, its presumed line, file)
        self._spans: list[tuple[int, int, str]] = []
        if "#" in text:
            blank = _COMMENTS.sub(lambda m: m.group() if m.group()[0] in "\"'" else
                                  re.sub(r"[^\n]", " ", m.group()), text)
            current = filename
            for n, line in enumerate(blank.split("\n"), 1):
                m = _DIRECTIVE.match(line) if "#" in line else None
                if m is None:
                    continue
                if m.group("file") is not None:
                    current = c_string(m.group("file"))
                self._spans.append((n + 1, int(m.group("line")), current))
        self._starts = [s[0] for s in self._spans]
        self._end = text.count("\n") + 2         # one past the text's last physical line
        self.names = frozenset(s[2] for s in self._spans) - {filename}

    @classmethod
    def of(cls, text: str, filename: str) -> "LineMap":
        """The map of `text` (kept for the last few texts: every pass of a rewrite asks)."""
        key = (text, filename)
        found = _MAPS.get(key)
        if found is None:
            found = _MAPS.put(key, cls(text, filename))
        return found

    def __bool__(self) -> bool:
        """Whether the text has directives (else every place is the physical one)."""
        return bool(self._spans)

    def presumed(self, lineno: int) -> tuple[str, int]:
        """(file, line) the compiler reports for physical line `lineno` (1-based)."""
        i = bisect.bisect_right(self._starts, lineno) - 1
        if i < 0:
            return self.filename, lineno
        first, presumed, name = self._spans[i]
        return name, presumed + (lineno - first)

    def physical(self, filename: str | None, lineno: int | None) -> int | None:
        """The physical line the compiler means by `filename`:`lineno` (None: not a line of
        this text). The last span that covers it wins, as a reader of the log would guess."""
        if lineno is None:
            return None
        if filename is None:
            filename = self.filename
        bounds = self._starts[1:] + [self._end]
        found = None
        if filename == self.filename and (not self._spans or lineno < self._starts[0]):
            found = lineno
        for (first, presumed, name), end in zip(self._spans, bounds):
            n = first + (lineno - presumed)
            if name == filename and first <= n < end:
                found = n
        return found

    def knows(self, filename: str | None) -> bool:
        """Whether `filename` names this text: its own name or one its directives give."""
        return filename == self.filename or filename in self.names


__all__ = ["LineMap"]
