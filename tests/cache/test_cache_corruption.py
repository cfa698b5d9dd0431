"""Damaged files: truncation at every byte offset, random bit flips, foreign and newer files.

Whatever the damage, a lookup returns either None or a payload that was stored under exactly
that key, nothing raises, the damage is detected (logged, and reported by verify()), and the
next write leaves a clean file.
"""
import logging
import os
import random
import struct

import pytest

from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings  # noqa: F401
from safekern.cache import Cache
from safekern.cache import format as fmt
from safekern.cache.kernels import KernelCache

NEW_KEY, NEW_VALUE = b"after the damage", b"fresh payload"


def _build(path):
    """A small file with entries, a replacement and a deletion. Returns (ops, every value ever
    stored per key): ops are (key, value or None for a deletion, file size after the op)."""
    c = Cache(path)
    ops = []
    script = [(b"alpha", b"A" * 10), (b"beta", b"B" * 100), (b"gamma", bytes(range(200))),
              (b"beta", None), (b"alpha", b"A2" * 20), (b"delta", b""), (b"eps" * 30, b"e" * 33)]
    for k, v in script:
        assert c.put(k, v, {"kernel": k.decode()[:5]}) if v is not None else c.delete(k)
        ops.append((k, v, os.path.getsize(path)))
    stored = {}
    for k, v, _ in ops:
        if v is not None:
            stored.setdefault(k, set()).add(v)
    return ops, stored


def _state(ops, n):
    """What the file should hold when cut to n bytes: every op whose record ends by n."""
    state = {}
    for k, v, end in ops:
        if end <= n:
            if v is None:
                state.pop(k, None)
            else:
                state[k] = v
    return state


class Scratch:
    """A new file for every damaged copy: rewriting one file in place (O_TRUNC) makes ext4
    flush it to disk each time, which would make these tests disk-bound."""

    def __init__(self, directory):
        self.directory = directory
        self.count = 0
        self.path = None

    def write(self, data: bytes) -> str:
        if self.path:
            for leftover in (self.path, self.path + ".lock"):
                if os.path.exists(leftover):
                    os.unlink(leftover)
        self.count += 1
        self.path = os.path.join(self.directory, f"damaged-{self.count}.cache")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, data)
        os.close(fd)
        return self.path


def test_truncation_at_every_offset(tmp_path):
    src = str(tmp_path / "src.cache")
    ops, stored = _build(src)
    with open(src, "rb") as f:
        original = f.read()
    keys_ = sorted(stored)
    scratch = Scratch(str(tmp_path))
    with cache_warnings():
        for n in range(len(original) + 1):
            damaged = scratch.write(original[:n])
            expected = _state(ops, n)
            reader = Cache(damaged, readonly=True)
            got = {k: reader.get(k) for k in keys_}
            assert got == {k: expected.get(k) for k in keys_}, n
            assert len(reader) == len(expected), n
            report = reader.verify()
            assert not report.problems, (n, report)
            # A writer cuts the torn tail (or starts afresh over a cut header) and appends.
            writer = Cache(damaged)
            assert writer.put(NEW_KEY, NEW_VALUE), n
            fresh = Cache(damaged, readonly=True)
            assert fresh.get(NEW_KEY) == NEW_VALUE
            assert {k: fresh.get(k) for k in keys_} == {k: expected.get(k) for k in keys_}, n
            report = fresh.verify()
            assert report.ok and report.torn_tail == 0, (n, report)


def _mutable_bytes(ops):
    """Offsets of the last-use fields: rewritten in place, outside every checksum."""
    out = set()
    start = fmt.HEADER_SIZE
    for _, _, end in ops:
        out.update(range(start + fmt.LAST_USED_OFFSET, start + fmt.LAST_USED_OFFSET + 8))
        start = end
    return out


@pytest.mark.parametrize("burst", [1, 2, 8, 64])
def test_random_bit_flips_are_detected_and_never_give_a_wrong_payload(tmp_path, caplog, burst):
    caplog.set_level(logging.INFO, logger="safekern.cache")
    src = str(tmp_path / "src.cache")
    ops, stored = _build(src)
    with open(src, "rb") as f:
        original = f.read()
    mutable = _mutable_bytes(ops)
    rng = random.Random(1234 + burst)
    scratch = Scratch(str(tmp_path))
    trials = 1500 if burst == 1 else 300
    with cache_warnings():
        for trial in range(trials):
            data = bytearray(original)
            first = rng.randrange(len(data) * 8)
            bits = {first} | {min(len(data) * 8 - 1, first + rng.randrange(burst * 8))
                              for _ in range(burst - 1)}
            for bit in bits:
                data[bit // 8] ^= 1 << (bit % 8)
            damaged = scratch.write(bytes(data))
            reader = Cache(damaged, readonly=True)
            for k, values in stored.items():
                got = reader.get(k)
                assert got is None or got in values, (trial, bits, k)
            touched = {bit // 8 for bit in bits}
            if not touched <= mutable:
                report = reader.verify()
                assert not report.ok or report.torn_tail, (trial, bits, report)
            writer = Cache(damaged)
            if writer.usable:           # a flipped magic makes it a foreign file: left alone
                assert writer.put(NEW_KEY, NEW_VALUE)
                assert Cache(damaged, readonly=True).get(NEW_KEY) == NEW_VALUE
    assert "damaged" in caplog.text


def test_a_damaged_record_is_logged_and_a_miss(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="safekern.cache")
    path = str(tmp_path / "c.cache")
    kc = KernelCache(Cache(path))
    assert kc.get_or_compile({"k": 1}, lambda: b"payload-one" * 10) == b"payload-one" * 10
    (entry,) = Cache(path).entries()
    with open(path, "r+b") as f:
        f.seek(entry.record_size + fmt.HEADER_SIZE - 40)    # inside the payload
        f.write(b"X")
    with cache_warnings() as caught:
        fresh = KernelCache(Cache(path))
        assert fresh.get_or_compile({"k": 1}, lambda: b"rebuilt") == b"rebuilt"
        assert fresh.get_or_compile({"k": 1}, lambda: b"again") == b"rebuilt"
    assert len(caught) == 1 and "damaged record" in str(caught[0].message)
    assert "checksum mismatch" in caplog.text
    report = Cache(path).verify()
    assert report.problems == [(fmt.HEADER_SIZE, "checksum mismatch")] and report.live == 1


def test_a_foreign_file_is_never_overwritten(tmp_path):
    path = tmp_path / "precious.txt"
    path.write_bytes(b"my thesis, chapter 1\n" * 10)
    before = path.read_bytes()
    with cache_warnings() as caught:
        c = Cache(str(path))
        assert not c.usable and c.get(b"k") is None and not c.put(b"k", b"v")
        assert not c.clear()
        kc = KernelCache(c)
        assert kc.get_or_compile({"k": 1}, lambda: b"bin") == b"bin"
    assert path.read_bytes() == before
    assert len(caught) == 1 and "not a safekern cache file" in str(caught[0].message)


def test_a_file_of_another_format_version_is_left_alone(tmp_path):
    path = str(tmp_path / "c.cache")
    Cache(path).put(b"k", b"v")
    with open(path, "r+b") as f:
        head = bytearray(f.read(fmt.HEADER_SIZE))
        struct.pack_into("<I", head, 8, 2)
        struct.pack_into("<I", head, 60, __import__("zlib").crc32(bytes(head[:60])))
        f.seek(0)
        f.write(head)
    with cache_warnings() as caught:
        c = Cache(path)
        assert c.get(b"k") is None and not c.put(b"k", b"w")
    assert "version 2" in str(caught[0].message)
    assert Cache(path, readonly=True).verify().header_problem.startswith("cache format version 2")


def test_an_empty_file_is_initialised(tmp_path):
    path = tmp_path / "c.cache"
    path.write_bytes(b"")
    os.chmod(path, 0o600)
    c = Cache(str(path))
    assert c.put(b"k", b"v") and Cache(str(path)).get(b"k") == b"v"
