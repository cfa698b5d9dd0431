"""Run without the simulator (and without a GPU): what the numba kernel cache stores, made the way
a launch makes it, and read back. Prints a JSON summary that tests/test_numba_binary.py asserts on.

numba-cuda compiles a checked kernel for sm_90 as a launch would (numba's `_Kernel` for the
launch's argument types, the hidden failure-buffer address last), its cubin is linked by
nvJitLink, packed as a payload, unpacked and rebuilt into numba's `_Kernel` again. Only loading
the cubin into a context needs a GPU.
"""
import hashlib
import json
import sys

from numba.cuda import types

from safekern.backends import numba_binary as nb
from safekern.backends.numba_cuda import _assume_device
from safekern.cache.kernels import kernel_key, unpack_payload
from tests import numba_kernels as K

CC = (9, 0)
DEVICE = {"device_name": "NVIDIA H200", "compute_capability": "9.0", "driver": "13.0"}
F32 = types.Array(types.float32, 1, "C")
I64 = types.Array(types.int64, 1, "C")


def compile_kernel(checked, argtypes):
    """numba's _Kernel of the checked kernel for argtypes, as the dispatcher's compile makes it
    (without bind(), which needs a context), for compute capability CC."""
    from numba.cuda.codegen import CUDACodeLibrary
    from numba.cuda.dispatcher import _Kernel

    dispatcher = checked._build()
    saved = CUDACodeLibrary._ensure_cc
    CUDACodeLibrary._ensure_cc = lambda self, cc: cc if cc is not None else nb.cc_triple(CC)
    try:
        with _assume_device(CC):
            return _Kernel(dispatcher.py_func, argtypes, **dispatcher.targetoptions)
    finally:
        CUDACodeLibrary._ensure_cc = saved


def main():
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
    fields = nb.key_fields(K.gather, argtypes, DEVICE)
    out["key_sha256"] = hashlib.sha256(kernel_key(fields)).hexdigest()
    out["payload_sha256"] = hashlib.sha256(payload).hexdigest()
    # A kernel with a checked device function and a signature-eager one.
    dev_types = (F32, F32, types.int64, types.int64)
    out["calls_device_storable"] = nb.storable(compile_kernel(K.calls_device, dev_types))
    out["calls_device_key_has_device_fn"] = bool(
        nb.key_fields(K.calls_device, dev_types, DEVICE)["function"]["device_functions"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
