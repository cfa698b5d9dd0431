"""Key material (canonical, injective, decodable) and kernel payloads (plain data only)."""
import pytest

from safekern.cache import keys
from safekern.cache.kernels import pack_payload, unpack_payload


def test_encoding_is_canonical_in_field_order():
    a = keys.encode({"source": "x", "name": "k", "opts": {"b": 1, "a": 2}})
    b = keys.encode({"opts": {"a": 2, "b": 1}, "name": "k", "source": "x"})
    assert a == b


@pytest.mark.parametrize("x, y", [
    ({"a": "bc"}, {"ab": "c"}),                       # length prefixes keep boundaries
    ({"s": ("ab", "c")}, {"s": ("a", "bc")}),
    ({"v": 1}, {"v": 1.0}), ({"v": 1}, {"v": True}), ({"v": 1}, {"v": "1"}),
    ({"v": b"1"}, {"v": "1"}), ({"v": None}, {"v": ""}), ({"v": 0}, {"v": False}),
    ({"v": ()}, {"v": None}), ({"v": (1,)}, {"v": ((1,),)}), ({"v": {}}, {"v": ()}),
    ({"v": 0.0}, {"v": -0.0}), ({"v": 2**64}, {"v": 2**64 + 1}),
    ({}, {"v": None}),
])
def test_different_fields_give_different_material(x, y):
    assert keys.encode(x) != keys.encode(y)
    assert keys.digest(keys.encode(x)) != keys.digest(keys.encode(y))


def test_decode_round_trips():
    fields = {"source": "Ω kernel\n", "cc": (9, 0), "opts": {"fastmath": True, "regs": None},
              "blob": b"\x00\xff", "x": 1.5, "big": -(2**70), "lst": [1, "a"]}
    back = keys.decode(keys.encode(fields))
    assert back == dict(fields, lst=(1, "a"))


def test_numpy_integers_are_ints():
    np = pytest.importorskip("numpy")
    assert keys.encode({"cc": (np.int64(8), np.int32(6))}) == keys.encode({"cc": (8, 6)})


@pytest.mark.parametrize("bad", [object(), {1, 2}, 3j])
def test_unsupported_types_are_named(bad):
    with pytest.raises(TypeError, match=r"'opts\.x'"):
        keys.encode({"opts": {"x": bad}})


def test_malformed_material_is_rejected():
    good = keys.encode({"a": 1})
    for bad in (b"", b"junk", good[:-1], good + b"\x00"):
        with pytest.raises(ValueError):
            keys.decode(bad)


def test_diff_names_changed_fields():
    old = {"source": "a = 1\nb = 2\n", "device": {"name": "H200", "driver": "550"}, "x": 1}
    new = {"source": "a = 1\nb = 3\n", "device": {"name": "H200", "driver": "560"}, "y": 2}
    lines = keys.diff(old, new)
    assert "device.driver: '550' -> '560'" in lines
    assert "source: line 2 changed: 'b = 2' -> 'b = 3'" in lines
    assert "x: removed (was 1)" in lines and "y: added, 2" in lines
    assert len(lines) == 4


def test_long_values_are_summarised():
    text = keys.show_value("x" * 1000)
    assert text.startswith("<str of 1000 chars, sha256 ") and len(text) < 60


def test_payload_round_trip():
    meta = {"arg_types": [["float32", 1, "C"]], "entry": "k", "sites": {"1": [3, "a.py"]}}
    blobs = {"ptx": b".version 8.0", "cubin": bytes(range(256)) * 10, "empty": b""}
    got_meta, got_blobs = unpack_payload(pack_payload(meta, blobs))
    assert got_meta == meta and got_blobs == blobs


def test_payload_rejects_non_data():
    with pytest.raises(TypeError):
        pack_payload({}, {"x": "not bytes"})
    with pytest.raises((TypeError, ValueError)):
        pack_payload({"f": object()}, {})


def test_malformed_payloads_raise_value_error():
    good = pack_payload({"a": 1}, {"b": b"cc"})
    for bad in (b"", b"SKPL", good[:-1], good + b"x", b"\x80\x04pickle", good[:5] + b"\xff" * 8):
        with pytest.raises(ValueError):
            unpack_payload(bad)
