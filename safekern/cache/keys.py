"""Key material: a canonical, length-prefixed encoding of the fields that determine a binary.

Two field dicts encode to the same bytes exactly when they are equal field by field, type
included (1, 1.0, True and "1" are four different keys), and the encoding can be decoded again,
so a cache miss can show which field changed. The store keys records by sha256 of these bytes and
keeps the bytes themselves beside the digest: a digest collision is a miss, never a wrong hit.

    material := b"SKKEY\\x01" u32(count) { lp(name) value }*      fields sorted by name
    value    := b"n"                    None
              | b"b" u8                 bool
              | b"i" lp(decimal ascii)  int (any size)
              | b"f" f64                float (IEEE 754 little-endian)
              | b"s" lp(utf-8)          str
              | b"y" lp(bytes)          bytes
              | b"t" u32(count) value*  tuple or list
              | b"d" u32(count) { lp(name) value }*   dict with str keys, sorted
    lp(x)    := u64(len(x)) x
"""
from __future__ import annotations

import hashlib
import operator
import struct
from collections.abc import Mapping

MAGIC = b"SKKEY\x01"
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")


def digest(material: bytes) -> bytes:
    return hashlib.sha256(material).digest()


def _lp(data: bytes) -> bytes:
    return _U64.pack(len(data)) + data


def _encode_value(value, where: str, out: list) -> None:
    if value is None:
        out.append(b"n")
    elif isinstance(value, bool):
        out.append(b"b\x01" if value else b"b\x00")
    elif isinstance(value, float):
        out.append(b"f" + _F64.pack(value))
    elif isinstance(value, str):
        out.append(b"s" + _lp(value.encode("utf-8", "surrogatepass")))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out.append(b"y" + _lp(bytes(value)))
    elif isinstance(value, (tuple, list)):
        out.append(b"t" + _U32.pack(len(value)))
        for i, item in enumerate(value):
            _encode_value(item, f"{where}[{i}]", out)
    elif isinstance(value, Mapping):
        _encode_mapping(value, where, out, tag=b"d")
    else:
        try:  # int and anything integral (numpy integers)
            number = operator.index(value)
        except TypeError:
            raise TypeError(f"cache key field {where!r}: {type(value).__name__} is not a key "
                            "type (str, int, float, bool, bytes, None, tuple, list, dict)") \
                from None
        out.append(b"i" + _lp(str(number).encode("ascii")))


def _encode_mapping(fields: Mapping, where: str, out: list, tag: bytes) -> None:
    names = list(fields)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"cache key field names must be str, got {name!r} in "
                            f"{where or 'fields'}")
    names.sort()
    out.append(tag + _U32.pack(len(names)))
    for name in names:
        out.append(_lp(name.encode("utf-8", "surrogatepass")))
        _encode_value(fields[name], f"{where}.{name}" if where else name, out)


def encode(fields: Mapping) -> bytes:
    """The key material of `fields` (TypeError names a field of an unsupported type)."""
    out: list[bytes] = []
    _encode_mapping(fields, "", out, tag=MAGIC)
    return b"".join(out)


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError("truncated key material")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u32(self) -> int:
        return _U32.unpack(self.take(4))[0]

    def lp(self) -> bytes:
        return self.take(_U64.unpack(self.take(8))[0])

    def value(self, depth: int = 0):
        if depth > 64:
            raise ValueError("key material nested too deeply")
        tag = self.take(1)
        if tag == b"n":
            return None
        if tag == b"b":
            return self.take(1) != b"\x00"
        if tag == b"f":
            return _F64.unpack(self.take(8))[0]
        if tag == b"s":
            return self.lp().decode("utf-8", "surrogatepass")
        if tag == b"y":
            return self.lp()
        if tag == b"i":
            return int(self.lp().decode("ascii"))
        if tag == b"t":
            return tuple(self.value(depth + 1) for _ in range(self.u32()))
        if tag == b"d":
            return self.mapping(depth + 1)
        raise ValueError(f"unknown tag {tag!r} in key material")

    def mapping(self, depth: int) -> dict:
        return {self.lp().decode("utf-8", "surrogatepass"): self.value(depth)
                for _ in range(self.u32())}


def decode(material: bytes) -> dict:
    """The fields encoded in `material` (lists come back as tuples). ValueError if malformed."""
    if not material.startswith(MAGIC):
        raise ValueError("not safekern key material")
    reader = _Reader(material)
    reader.take(len(MAGIC))
    fields = reader.mapping(0)
    if reader.pos != len(material):
        raise ValueError("trailing bytes after key material")
    return fields


def show_value(value, limit: int = 80) -> str:
    """A short, log-friendly rendering: long strings and bytes by size and hash."""
    if isinstance(value, (str, bytes)) and len(value) > limit:
        raw = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
        kind = "str" if isinstance(value, str) else "bytes"
        return f"<{kind} of {len(value)} {'chars' if kind == 'str' else 'bytes'}, " \
               f"sha256 {hashlib.sha256(raw).hexdigest()[:12]}>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(fields: Mapping) -> list[str]:
    """One line per field, sorted by name."""
    return [f"{name} = {show_value(fields[name])}" for name in sorted(fields)]


def diff(old: Mapping, new: Mapping, prefix: str = "") -> list[str]:
    """Lines naming each field that differs between two field dicts (nested dicts by dotted
    name; a long text by its first changed line)."""
    lines = []
    for name in sorted(set(old) | set(new)):
        label = prefix + name
        if name not in old:
            lines.append(f"{label}: added, {show_value(new[name])}")
        elif name not in new:
            lines.append(f"{label}: removed (was {show_value(old[name])})")
        else:
            a, b = old[name], new[name]
            if type(a) is type(b) and a == b:
                continue
            if isinstance(a, Mapping) and isinstance(b, Mapping):
                lines += diff(a, b, label + ".")
            elif isinstance(a, str) and isinstance(b, str) and "\n" in a + b:
                lines.append(f"{label}: {_first_changed_line(a, b)}")
            else:
                lines.append(f"{label}: {show_value(a)} -> {show_value(b)}")
    return lines


def _first_changed_line(a: str, b: str) -> str:
    old_lines, new_lines = a.splitlines(), b.splitlines()
    for i in range(max(len(old_lines), len(new_lines))):
        x = old_lines[i] if i < len(old_lines) else None
        y = new_lines[i] if i < len(new_lines) else None
        if x != y:
            return f"line {i + 1} changed: {show_value(x)} -> {show_value(y)}"
    return f"{show_value(a)} -> {show_value(b)} (line endings or trailing text)"
