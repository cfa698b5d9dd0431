"""Text edits of a C kernel's source that keep its line numbers, and the `#line` that names them.

A front end never edits the tree: it collects `Edit`s (byte ranges of the user's UTF-8 text and
their replacements) and `apply_edits` makes the rewritten source from them in one pass:

    edits = [insert_before(i0, "__sk_ix(", depth), insert_after(i1, ", n, CODE, ...)", depth)]
    text = apply_edits(ps, edits, prelude=dialect_prelude)   # prelude, '#line 1 "file"', text
    prelude_lines(text)                                      # lines before the user's line 1

Edit text never holds a newline, so every line of the user's source stays where it was and the
compiler's messages (through `#line`) name the user's lines.
"""
from __future__ import annotations

from dataclasses import dataclass

@dataclass(frozen=True)
class Edit:
    """Replace data[start:end] with `text` (an insertion when end == start).

    `key` orders edits that meet at one offset: insert_after() texts (which close constructs
    ending there) come first, innermost first; then insert_before() texts, outermost first.
    """

    start: int
    end: int = -1
    text: str = ""
    key: tuple = (1, 0)

    def __post_init__(self):
        if self.end < 0:
            object.__setattr__(self, "end", self.start)
        if "\n" in self.text:
            raise ValueError("edit text must not contain a newline (line numbers are kept)")


def insert_before(pos: int, text: str, depth: int = 0) -> Edit:
    return Edit(pos, pos, text, (1, depth))


def insert_after(pos: int, text: str, depth: int = 0) -> Edit:
    return Edit(pos, pos, text, (0, -depth))


def replace(start: int, end: int, text: str) -> Edit:
    return Edit(start, end, text, (2, 0))


def line_directive(lineno: int, filename: str) -> str:
    name = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {lineno} "{name}"'


def apply_edits(ps, edits, *, prelude: str = "") -> str:
    """The edited user source after `prelude` and a #line directive back to line 1."""
    data = ps.data
    ordered = sorted(edits, key=lambda e: (e.start, e.key, e.end))
    out = []
    pos = 0
    for e in ordered:
        if e.start < pos:
            raise ValueError(f"overlapping edits at byte {e.start} of {ps.filename}")
        out.append(data[pos:e.start])
        out.append(e.text.encode("utf-8"))
        pos = e.end
    out.append(data[pos:])
    body = b"".join(out).decode("utf-8")
    head = prelude if not prelude or prelude.endswith("\n") else prelude + "\n"
    return f"{head}{line_directive(1, ps.filename)}\n{body}"


def prelude_lines(text: str) -> int:
    """Lines before the user's line 1 in a text made by apply_edits (the #line included)."""
    marker = text.find("\n#line 1 ")
    if text.startswith("#line 1 "):
        return 1
    if marker < 0:
        return 0
    return text.count("\n", 0, marker + 1) + 1


__all__ = ["Edit", "insert_before", "insert_after", "replace", "line_directive", "apply_edits",
           "prelude_lines"]
