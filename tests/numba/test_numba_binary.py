"""Numba kernels in the kernel cache, the parts that need no GPU: argument types as plain data,
the typing of launch arguments, cache keys (each field changes the key, nothing else does), the
payload (compiled by numba-cuda for sm_90, packed, read back and rebuilt into numba's _Kernel),
and which kernels stay on numba's own launch path. Loading and launching: test_numba_binary_gpu.py.
"""
import collections
import enum
import json

import numpy as np
import pytest

from safekern.backends.numba import keys as nk, payload as npl
from safekern.backends.numba.payload import types
from safekern.cache import keys
from safekern.cache.kernels import pack_payload
from tests.support.numba_probes import run_probe


# -- argument types as plain data ---------------------------------------------------------------

ROUND_TRIP = [
    types.boolean, types.int8, types.uint16, types.int32, types.int64, types.uint64,
    types.float16, types.float32, types.float64, types.complex64, types.complex128,
    types.Array(types.float32, 1, "C"), types.Array(types.int64, 3, "F"),
    types.Array(types.complex128, 2, "A", readonly=True),
    types.Array(types.uint8, 1, "C", aligned=False), types.Array(types.float64, 0, "C"),
    types.UniTuple(types.int64, 3), types.UniTuple(types.Array(types.float32, 2, "C"), 2),
    types.Tuple([types.int64, types.float32]),
    types.Tuple([types.UniTuple(types.int32, 2), types.Array(types.boolean, 1, "A")]),
]


@pytest.mark.parametrize("ty", ROUND_TRIP, ids=str)
def test_argument_types_round_trip_through_json(ty):
    data = npl.type_to_data(ty)
    back = npl.type_from_data(json.loads(json.dumps(data)))
    assert back == ty and back is ty          # numba interns types: the very same object
    assert npl.as_key(data) == npl.as_key(npl.type_to_data(back))


def test_distinct_types_have_distinct_data():
    datas = [json.dumps(npl.type_to_data(t)) for t in ROUND_TRIP]
    assert len(set(datas)) == len(datas)


class Color(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize("ty", [
    types.NPDatetime("s"), types.Record.make_c_struct([("x", types.int32)]),
    types.Array(types.Record.make_c_struct([("x", types.int32)]), 1, "C"),
    types.NamedUniTuple(types.int64, 2, collections.namedtuple("P", "x y")), types.none,
    types.Optional(types.int64), types.unicode_type, types.IntEnumMember(Color, types.int64),
], ids=str)
def test_other_types_are_not_stored(ty):
    with pytest.raises(nk.Uncacheable):
        npl.type_to_data(ty)


@pytest.mark.parametrize("data", [
    "int65", "", [], ["array"], ["array", "float32", 1, "X", False, True],
    ["array", "float32", -1, "C", False, True], ["array", "float32", 1, "C", 0, True],
    ["array", ["unituple", "int64", 2], 1, "C", False, True], ["unituple", "int64", -1],
    ["unituple", "int64", True], ["tuple", "int64"], ["pickle", "x"], {"array": 1}, 3, None,
])
def test_malformed_type_data_is_rejected(data):
    with pytest.raises(ValueError):
        npl.type_from_data(data)


def test_deeply_nested_type_data_is_rejected():
    data = "int64"
    for _ in range(40):
        data = ["unituple", data, 1]
    with pytest.raises(ValueError):
        npl.type_from_data(data)


# -- the types of launch arguments ---------------------------------------------------------------

VALUES = [0, 1, -5, 2**31, 2**62, -(2**63), 2**63, 2**64 - 1, 1.5, True, False, 1 + 2j,
          np.float32(1), np.int8(3), np.uint64(7), np.bool_(True), np.complex64(1j),
          np.float16(2), np.zeros(3, np.float32), np.zeros((3, 4), np.int64, order="F"),
          np.zeros((4, 4))[::2, 1:], np.zeros((2, 2), np.float32)[:, :1],
          (1, 2), (1, 2.5), (np.zeros(2),)]


def _readonly():
    a = np.zeros(3)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("value", VALUES + [_readonly()], ids=lambda v: type(v).__name__)
def test_launch_argument_types_are_numbas(value):
    from numba.cuda.typing.typeof import Purpose, typeof

    from safekern.backends.numba.marshal import argument_types

    assert argument_types((value,)) == (typeof(value, Purpose.argument),)
    assert argument_types((value, value)) == (typeof(value, Purpose.argument),) * 2


def test_untypable_argument_raises_like_numba():
    from safekern.backends.numba.marshal import argument_types

    with pytest.raises(ValueError):
        argument_types((2**64,))


# -- describing globals, options, signatures --------------------------------------------------

def test_globals_are_described_by_value_and_identity():
    import math

    a = np.arange(4, dtype=np.float32)
    described = nk.describe_value(a)
    a[0] = 9
    assert nk.describe_value(a) != described                     # contents, not identity
    assert nk.describe_value(math) == ("module", "math")
    assert nk.describe_value(np.float32(2)) != nk.describe_value(np.float64(2))
    assert nk.describe_value(types.float32) == ("numba_type", "Float", "float32")
    assert nk.describe_value(Color.RED)[0] == "enum"
    assert nk.describe_value({"fast", "nnan"}) == ("set", "fast", "nnan")
    assert nk.describe_value((1, 2.0, None)) != nk.describe_value([1, 2.0, None])
    encode = keys.encode
    assert encode({"g": nk.describe_value(1)}) != encode({"g": nk.describe_value(True)})
    assert encode({"g": nk.describe_value(1)}) != encode({"g": nk.describe_value(np.int64(1))})


def test_device_arrays_and_unknown_objects_are_not_described():
    class FakeDeviceArray:
        __cuda_array_interface__ = {"data": (1234, False), "shape": (1,), "typestr": "<f4",
                                    "version": 3}

    for value in (FakeDeviceArray(), object(), {"a": 1}, lambda: 1 if False else None):
        if callable(value) and not isinstance(value, type):
            continue                     # plain functions are described by their code
        with pytest.raises(nk.Uncacheable):
            nk.describe_value(value)


def test_functions_are_described_by_their_code():
    def f(x):
        return x + 1

    def g(x):
        return x + 2

    assert nk.describe_value(f) != nk.describe_value(g)
    assert nk.describe_value(f) == nk.describe_value(f)


def test_linked_files_are_keyed_by_content(tmp_path):
    path = tmp_path / "extra.ptx"
    path.write_text("// one")
    one = nk.options_fields({"link": [str(path)], "cache": True})
    path.write_text("// two")
    two = nk.options_fields({"link": [str(path)]})
    assert one != two and "cache" not in one


def test_options_that_need_numbas_launch_path():
    assert nk.launch_obstacle({}) is None
    assert nk.launch_obstacle({"fastmath": True, "lineinfo": True, "max_registers": 32}) is None
    assert "debug" in nk.launch_obstacle({"debug": True})
    assert "extensions" in nk.launch_obstacle({"extensions": [object()]})


def test_an_eager_kernel_launch_picks_the_signature_numba_would():
    from safekern.backends.numba.launch import _fit_signature

    a_f32 = types.Array(types.float32, 1, "A")
    c_f32 = types.Array(types.float32, 1, "C")
    c_f64 = types.Array(types.float64, 1, "C")
    i64 = types.int64
    one = [(a_f32, types.float32, i64)]
    assert _fit_signature(one, (c_f32, types.float32, i64)) == one[0]
    assert _fit_signature(one, (c_f32, types.int64, i64)) == one[0]        # int -> float32
    assert _fit_signature(one, (c_f64, types.float32, i64)) is None        # numba's error
    assert _fit_signature(one, (c_f32, i64)) is None
    two = [(a_f32, types.float32, i64), (a_f32, types.int32, i64)]
    assert _fit_signature(two, (c_f32, types.int32, i64)) == two[1]
    assert _fit_signature(two, (c_f32, types.int64, i64)) is None          # ambiguous: numba
    readonly = types.Array(types.float32, 1, "C", readonly=True)
    assert _fit_signature(one, (readonly, types.float32, i64)) is None


# -- payloads ---------------------------------------------------------------------------------

def test_payloads_that_are_not_ours_are_rejected():
    from safekern.backends.numba.payload import unpack_kernel

    argtypes = (types.Array(types.float32, 1, "C"), types.int64)
    good = {"payload": npl.PAYLOAD_VERSION, "entry": "_Z1k", "library": "k",
            "arg_types": [npl.type_to_data(t) for t in argtypes], "cc": [9, 0, "a"]}
    meta, cubin, ptx = unpack_kernel(pack_payload(good, {"cubin": b"\x7fELF..."}), argtypes)
    assert meta["entry"] == "_Z1k" and cubin == b"\x7fELF..." and ptx is None
    for bad_meta, blobs in [
        (dict(good, payload=99), {"cubin": b"x"}),
        (dict(good, entry=""), {"cubin": b"x"}),
        (dict(good, cc=[9, "0", "a"]), {"cubin": b"x"}),
        (dict(good, arg_types=["int64", "int64"]), {"cubin": b"x"}),
        (dict(good, arg_types=[["pickle", "cos"], "int64"]), {"cubin": b"x"}),
        (good, {}),
        (good, {"cubin": b""}),
    ]:
        with pytest.raises(ValueError):
            unpack_kernel(pack_payload(bad_meta, blobs), argtypes)
    with pytest.raises(ValueError):
        unpack_kernel(b"SKPL\x01garbage", argtypes)


def test_cc_triple_is_numbas_cubin_key():
    from safekern.backends.numba.payload import cc_triple

    assert cc_triple((9, 0)) == (9, 0, "a")
    assert cc_triple((8, 6)) == (8, 6, "")
    assert cc_triple((10, 0)) == (10, 0, "a")


# -- compiled without a GPU (numba-cuda, NVVM and nvJitLink; no simulator) ------------------------

def _run_probe(*args):
    return run_probe("tests.numba.numba_binary_probe", *args)


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return _run_probe(str(tmp_path_factory.mktemp("variants")))


def test_payload_holds_the_cubin_ptx_and_plain_data(probe):
    p = probe["payload"]
    assert p["storable"] is None
    assert p["blobs"] == ["cubin", "ptx"]
    assert p["cubin_magic"] == "7f454c46"                       # an ELF cubin, linked
    assert p["ptx_has_entry"] and p["entry_matches"]
    meta = p["meta"]
    assert set(meta) == {"payload", "entry", "library", "arg_types", "cc", "lineinfo",
                         "max_registers", "lto", "carveout", "warnings"}
    assert meta["cc"] == [9, 0, "a"]
    assert meta["arg_types"] == [["array", "float32", 1, "C", False, True],
                                 ["array", "float32", 1, "C", False, True],
                                 ["array", "int64", 1, "C", False, True], "int64"]
    assert p["calls_device_storable"] is None and p["calls_device_key_has_device_fn"]


def test_payload_rebuilds_numbas_kernel_without_compiling(probe):
    r = probe["payload"]["rebuilt"]
    assert r["same_types"] and r["entry"] and r["cubin_same"] and r["asm_same"]
    assert r["cubin_keys"] == [[9, 0, "a"]]
    assert "not" in probe["payload"]["wrong_types"]


KEY_CHANGES = ["source", "moved", "constant", "table", "plain_device_function",
               "checked_device_function", "fastmath", "lineinfo", "max_registers", "arg_types",
               "array_layout", "device.device_name", "device.compute_capability",
               "device.driver", "toolchain", "codegen", "env"]


@pytest.mark.parametrize("variant", KEY_CHANGES)
def test_changing_a_key_field_misses(probe, variant):
    assert probe["keys"][variant] != probe["keys"]["base"]


def test_all_key_changes_are_distinct(probe):
    digests = [probe["keys"][v] for v in KEY_CHANGES]
    assert len(set(digests)) == len(digests)


@pytest.mark.parametrize("variant", ["trailing_comment", "redecorated", "base_again"])
def test_what_does_not_change_the_binary_keeps_the_key(probe, variant):
    assert probe["keys"][variant] == probe["keys"]["base"]


def test_an_unknown_global_makes_the_kernel_uncached(probe):
    assert "builtins.object" in probe["keys"]["unknown_global"]


def test_keys_are_the_same_in_every_process(probe):
    again = _run_probe("--key-only")
    assert again["payload"]["key_sha256"] == probe["payload"]["key_sha256"]
