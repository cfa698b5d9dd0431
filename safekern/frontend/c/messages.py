"""The text of the C front ends' assert and division failure messages (safety.py).

A message is a str.format template the host fills with the integer values a failing thread
recorded: `SAFEKERN_ASSERT_MSG(cond, "i=%d n=%d", i, n)` becomes "i={0} n={1}" -- the C string
literal read as C reads it (`c_string`), its printf conversions turned into fields
(`printf_template`); source text shown in a message is `literal` (braces doubled) and
whitespace-collapsed (`collapse`).
"""
from __future__ import annotations

import re


def collapse(text: str) -> str:
    return " ".join(text.split())


def literal(text: str) -> str:
    """Text shown as it is in a str.format template."""
    return text.replace("{", "{{").replace("}", "}}")


STRING_TOKEN = re.compile(r'^(?:u8|u|U|L)?"')
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]+|[0-7]{1,3}|.)", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
           "\\": "\\", "'": "'", '"': '"', "?": "?", "e": "\x1b"}


def c_string(token: str) -> str:
    """The characters of one C string literal token."""
    body = token[token.index('"') + 1:-1]

    def unescape(m):
        esc = m.group(1)
        if esc[0] == "x":
            return chr(int(esc[1:], 16) & 0x10FFFF)
        if esc[0] in "01234567":
            return chr(int(esc, 8))
        return _SIMPLE.get(esc, esc)

    return _ESCAPE.sub(unescape, body)


_CONVERSION = re.compile(r"%(?P<flags>[-0]*)(?P<width>\d*)(?:hh|h|ll|l|z|j|t)?"
                         r"(?P<type>[diuxXoc%])|%")


def printf_template(text: str):
    """(str.format template, number of values) of a printf-style message; (None, None) for a
    conversion safekern cannot show."""
    out, n, pos = [], 0, 0
    for m in _CONVERSION.finditer(text):
        out.append(literal(text[pos:m.start()]))
        pos = m.end()
        kind = m.group("type")
        if kind is None:
            return None, None
        if kind == "%":
            out.append("%")
            continue
        spec = ("<" if "-" in m.group("flags") else "") + \
            ("0" if "0" in m.group("flags") and "-" not in m.group("flags") else "") + \
            m.group("width") + {"d": "", "i": "", "u": "", "c": "c"}.get(kind, kind)
        out.append("{" + str(n) + (":" + spec if spec else "") + "}")
        n += 1
    out.append(literal(text[pos:]))
    return "".join(out), n


__all__ = ["collapse", "literal", "c_string", "printf_template", "STRING_TOKEN"]
