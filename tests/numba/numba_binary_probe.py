"""Run without the simulator (and without a GPU): what the numba kernel cache stores, made the way
a launch makes it, and read back; and the cache keys of variants of a kernel module. Prints a
JSON summary that tests/numba/test_numba_binary.py asserts on.

    python -m tests.numba.numba_binary_probe DIR      # DIR: where to write the variant modules
    python -m tests.numba.numba_binary_probe --key-only   # only the key of one kernel

numba-cuda compiles a checked kernel for sm_90 as a launch would (numba's `_Kernel` for the
launch's argument types, the hidden failure-buffer address last), its cubin is linked by
nvJitLink, packed as a payload, unpacked and rebuilt into numba's `_Kernel` again. Only loading
the cubin into a context needs a GPU.
"""
import hashlib
import importlib.util
import json
import os
import sys

from numba.cuda import types

from safekern.backends.numba import payload as nb
from safekern.backends.numba import keys as numba_keys
from safekern.backends.numba.build import assume_device as _assume_device
from safekern.cache.kernels import kernel_key, unpack_payload
from tests.numba import numba_kernels as K

CC = (9, 0)
DEVICE = {"device_name": "NVIDIA H200", "compute_capability": "9.0", "driver": "13.0"}
F32 = types.Array(types.float32, 1, "C")
I64 = types.Array(types.int64, 1, "C")


def compile_kernel(checked, argtypes):
    """numba's _Kernel of the checked kernel for argtypes, as the dispatcher's compile makes it
    (without bind(), which needs a context), for compute capability CC."""
    from numba.cuda.codegen import CUDACodeLibrary
    from numba.cuda.dispatcher import _Kernel

    dispatcher = checked.numba_dispatcher()
    saved = CUDACodeLibrary._ensure_cc
    CUDACodeLibrary._ensure_cc = lambda self, cc: cc if cc is not None else nb.cc_triple(CC)
    try:
        with _assume_device(CC):
            return _Kernel(dispatcher.py_func, argtypes, **dispatcher.targetoptions)
    finally:
        CUDACodeLibrary._ensure_cc = saved


def payload_summary():
    out = {}
    argtypes = (F32, F32, I64, types.int64)
    kernel = compile_kernel(K.gather, argtypes)
    out["storable"] = nb.storable(kernel)
    payload = nb.pack_kernel(kernel, argtypes, CC)
    meta, blobs = unpack_payload(payload)
    out["meta"] = meta
    out["blobs"] = sorted(blobs)
    out["cubin_magic"] = blobs["cubin"][:4].hex()
    out["ptx_has_entry"] = (b".entry " + kernel.entry_name.encode()) in blobs.get("ptx", b"")
    out["entry_matches"] = meta["entry"] == kernel.entry_name
    meta2, cubin, ptx = nb.unpack_kernel(payload, argtypes)
    rebuilt = nb.rebuild_kernel(meta2, cubin, ptx, argtypes)
    lib = rebuilt._codelibrary
    out["rebuilt"] = {
        "argument_types": [str(t) for t in rebuilt.argument_types],
        "same_types": rebuilt.argument_types == argtypes,
        "entry": rebuilt.entry_name == kernel.entry_name,
        "cubin_keys": [list(k) for k in lib._cubin_cache],
        "cubin_same": lib._cubin_cache[nb.cc_triple(CC)].code == cubin,
        "asm_same": rebuilt.inspect_asm(nb.cc_triple(CC)) == ptx,
    }
    try:
        nb.unpack_kernel(payload, (F32, F32, F32, types.int64))
        out["wrong_types"] = "accepted"
    except ValueError as err:
        out["wrong_types"] = str(err)
    fields = numba_keys.key_fields(K.gather, argtypes, DEVICE)
    out["key_sha256"] = hashlib.sha256(kernel_key(fields)).hexdigest()
    out["payload_sha256"] = hashlib.sha256(payload).hexdigest()
    # A kernel with a checked device function and a signature-eager one.
    dev_types = (F32, F32, types.int64, types.int64)
    out["calls_device_storable"] = nb.storable(compile_kernel(K.calls_device, dev_types))
    out["calls_device_key_has_device_fn"] = bool(
        numba_keys.key_fields(K.calls_device, dev_types, DEVICE)["function"]["device_functions"])
    return out


# -- keys of variants ------------------------------------------------------------------------

TEMPLATE = '''import numpy as np
from numba import cuda, float32
import safekern
{PREFIX}
N = {N}
TABLE = np.array({TABLE}, dtype=np.float32)


@cuda.jit(device=True)
def plain(x):
    return x * {PLAIN}


@safekern.jit(device=True)
def dev_get(a, i):
    return a[{DEV}]


@safekern.jit({OPTS})
def k(out, a, s):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = plain(dev_get(a, i)) * s + N + float32(TABLE[i % 2]){TAIL}
'''

BASE = {"PREFIX": "", "N": "4", "TABLE": "[1.0, 2.0]", "PLAIN": "2", "DEV": "i", "OPTS": "",
        "TAIL": ""}
SOURCE_VARIANTS = {
    "base": {},
    "trailing_comment": {"TAIL": "  # a comment"},
    "source": {"TAIL": " + 1"},
    "moved": {"PREFIX": "SHIFT = 0\n"},      # the kernels one line further down
    "constant": {"N": "5"},
    "table": {"TABLE": "[1.0, 3.0]"},
    "plain_device_function": {"PLAIN": "3"},
    "checked_device_function": {"DEV": "i + 0"},
    "fastmath": {"OPTS": "fastmath=True"},
    "lineinfo": {"OPTS": "lineinfo=True"},
    "max_registers": {"OPTS": "max_registers=32"},
}
ARGS = (F32, F32, types.float64, types.int64)


def _load(directory, name, subst):
    # One path for every variant: the file is part of a kernel's identity (failure codes name it).
    path = os.path.join(directory, "variant.py")
    with open(path, "w") as f:
        f.write(TEMPLATE.format(**dict(BASE, **subst)))
    spec = importlib.util.spec_from_file_location("variant", path)   # one module name too
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _digest(kernel, argtypes=ARGS, device=DEVICE):
    return hashlib.sha256(kernel_key(numba_keys.key_fields(kernel, argtypes, device))).hexdigest()


def key_summary(directory):
    import safekern

    out = {}
    modules = {}
    for name, subst in SOURCE_VARIANTS.items():
        modules[name] = _load(directory, name, subst)
        out[name] = _digest(modules[name].k)
    base = modules["base"]
    out["redecorated"] = _digest(safekern.jit(base.k.py_func))
    out["arg_types"] = _digest(base.k, (F32, F32, types.float32, types.int64))
    out["array_layout"] = _digest(base.k, (F32, types.Array(types.float32, 1, "A"),
                                          types.float64, types.int64))
    for field, value in (("device_name", "NVIDIA H100"), ("compute_capability", "9.1"),
                         ("driver", "13.1")):
        out[f"device.{field}"] = _digest(base.k, device=dict(DEVICE, **{field: value}))
    saved = numba_keys.toolchain()
    numba_keys._toolchain = dict(saved, numba_cuda="0.0.1")
    out["toolchain"] = _digest(base.k)
    numba_keys._toolchain = saved
    codegen = numba_keys.codegen_digest()
    numba_keys._codegen = "0" * 64
    out["codegen"] = _digest(base.k)
    numba_keys._codegen = codegen
    os.environ["NUMBA_OPT"] = "1"
    out["env"] = _digest(base.k)
    del os.environ["NUMBA_OPT"]
    out["base_again"] = _digest(base.k)
    # A global of a type the key cannot describe: Uncacheable, named.
    base.N = object()
    try:
        _digest(base.k)
        out["unknown_global"] = "described"
    except numba_keys.Uncacheable as err:
        out["unknown_global"] = str(err)
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--key-only"]:
        fields = numba_keys.key_fields(K.gather, (F32, F32, I64, types.int64), DEVICE)
        json.dump({"payload": {"key_sha256": hashlib.sha256(kernel_key(fields)).hexdigest()}},
                  sys.stdout)
    else:
        json.dump({"payload": payload_summary(), "keys": key_summary(sys.argv[1])}, sys.stdout)
