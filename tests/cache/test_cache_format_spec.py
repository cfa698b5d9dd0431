"""docs/cache-format.md is enough to read the file: an independent reader, written from the
document alone (it imports nothing from safekern.cache), reads what Cache writes."""
import hashlib
import json
import struct
import zlib

from tests.support.cache_helpers import fresh_cache_warnings  # noqa: F401
from safekern.cache import Cache
from safekern.cache.kernels import KernelCache, pack_payload


def read_cache_file(path):
    """{key: (meta, payload)} of the intact current entries, per docs/cache-format.md."""
    data = open(path, "rb").read()
    assert data[:8] == b"SKCACHE\x00"
    version, header_size = struct.unpack_from("<II", data, 8)
    assert (version, header_size) == (1, 64)
    assert struct.unpack_from("<I", data, 60)[0] == zlib.crc32(data[:60])
    current = {}
    p = 64
    while p + 80 <= len(data):
        head = data[p:p + 80]
        (magic, kind, _, _, _, digest, key_len, meta_len, payload_len, _, crc,
         _) = struct.unpack("<4sBBHq32sIIQIIq", head)
        assert magic == b"SKRC" and kind in (1, 2) and crc == zlib.crc32(head[:68])
        body = key_len + meta_len + payload_len
        length = 80 + (body + 7) // 8 * 8 + 24
        if p + length > len(data):
            break                                   # torn tail
        record = data[p:p + length]
        assert record[-8:] == b"SKCOMMIT"
        check = hashlib.blake2b(record[:72] + record[80:length - 24], digest_size=16).digest()
        assert check == record[length - 24:length - 8]
        key = record[80:80 + key_len]
        assert hashlib.sha256(key).digest() == digest
        if kind == 2:
            current.pop(key, None)
        else:
            meta = record[80 + key_len:80 + key_len + meta_len]
            current[key] = (json.loads(meta) if meta else {},
                            record[80 + key_len + meta_len:80 + body])
        p += length
    return current


def read_payload(blob):
    """(json, blobs) of a kernel payload, per the same document."""
    assert blob[:5] == b"SKPL\x01"
    (n,) = struct.unpack_from("<I", blob, 5)
    meta = json.loads(blob[9:9 + n])
    p = 9 + n
    (count,) = struct.unpack_from("<I", blob, p)
    p += 4
    blobs = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<I", blob, p)
        name = blob[p + 4:p + 4 + name_len].decode()
        (size,) = struct.unpack_from("<Q", blob, p + 4 + name_len)
        start = p + 12 + name_len
        blobs[name] = blob[start:start + size]
        p = start + size
    assert p == len(blob)
    return meta, blobs


def test_an_independent_reader_agrees(tmp_path):
    path = str(tmp_path / "c.cache")
    c = Cache(path)
    c.put(b"a", b"first", {"kernel": "a"})
    c.put(b"b", b"x" * 1001)
    c.put(b"a", b"second", {"kernel": "a2"})
    c.delete(b"b")
    c.put(b"", b"")
    c.get(b"a")
    with open(path, "ab") as f:                      # a torn tail
        f.write(b"SKRC\x01")
    assert read_cache_file(path) == {b"a": ({"kernel": "a2"}, b"second"), b"": ({}, b"")}


def test_an_independent_reader_reads_a_kernel_entry(tmp_path):
    path = str(tmp_path / "k.cache")
    kc = KernelCache(Cache(path))
    fields = {"kernel": "saxpy", "cc": (9, 0)}
    blob = pack_payload({"arg_types": [["float32", 1, "C"]]}, {"ptx": b".version 8.5"})
    kc.get_or_compile(fields, lambda: blob, describe="numba kernel 'saxpy'",
                      meta={"kernel": "saxpy", "backend": "numba-cuda"})
    ((key, (meta, payload)),) = read_cache_file(path).items()
    assert key == kc.key(fields) and key.startswith(b"SKKEY\x01")
    assert meta["kernel"] == "saxpy" and meta["describe"] == "numba kernel 'saxpy'"
    assert read_payload(payload) == ({"arg_types": [["float32", 1, "C"]]},
                                     {"ptx": b".version 8.5"})


def encode_key(fields):
    """The key material of the document's grammar, written independently."""
    def lp(raw):
        return struct.pack("<Q", len(raw)) + raw

    def value(v):
        if v is None:
            return b"n"
        if isinstance(v, bool):
            return b"b" + bytes([v])
        if isinstance(v, int):
            return b"i" + lp(str(v).encode())
        if isinstance(v, float):
            return b"f" + struct.pack("<d", v)
        if isinstance(v, str):
            return b"s" + lp(v.encode())
        if isinstance(v, bytes):
            return b"y" + lp(v)
        if isinstance(v, (tuple, list)):
            return b"t" + struct.pack("<I", len(v)) + b"".join(value(x) for x in v)
        return b"d" + mapping(v)

    def mapping(d):
        return struct.pack("<I", len(d)) + b"".join(lp(k.encode()) + value(d[k])
                                                    for k in sorted(d))

    return b"SKKEY\x01" + mapping(fields)


def test_key_material_follows_the_grammar():
    import safekern

    fields = {"source": "é", "cc": (9, 0), "opts": {"fastmath": False, "regs": None},
              "blob": b"\x00", "x": -1.5, "n": -(2**70)}
    expected = encode_key(dict(fields, safekern_version=safekern.__version__, cache_format=1))
    assert KernelCache(None).key(fields) == expected
