"""Run without the simulator: compiles the constructs of tests/compat/compat_kernels.py (and a
record read by field position) to PTX for sm_90 with numba-cuda's real typing and lowering (no
GPU needed); prints {kernel: "ok" or the error} as JSON for tests/compat/test_numba_compat.py."""
import json

import numpy as np
from numba import types
from numba.cuda.np import numpy_support

import safekern
from tests.compat import compat_kernels as K

RECORD = numpy_support.from_dtype(np.dtype([("g", np.int32), ("h", np.float32, 2)],
                                           align=True))


@safekern.jit(device=True)
def first_field(rec):
    return rec[0]


@safekern.jit
def record_by_position(rec, res):
    res[0] = first_field(rec)


F64 = types.float64[::1]
CASES = {
    "atomic_through_parameter": (K.atomic_through_parameter, (types.int32[::1], types.int64)),
    "read_through_parameter": (K.read_through_parameter, (F64, F64, types.int64)),
    "recursive_sum": (K.recursive_sum, (F64, F64, types.int64)),
    "kernel_calling_kernel": (K.kernel_calling_kernel, (F64, F64, types.int64)),
    "star_args": (K.star_args, (F64, F64, types.int64)),
    "defaults_omitted": (K.defaults_omitted, (F64, F64)),
    "grid_steps": (K.grid_steps, (F64, F64, types.int64)),
    "record_by_position": (record_by_position, (RECORD, types.int32[::1])),
}


@safekern.jit(inline="always")
def set_zero_inline(a):
    a[0] = 0


@safekern.jit(inline="never")
def set_zero_call(a):
    a[0] = 0


@safekern.jit
def calls_inline(a):
    set_zero_inline(a)


@safekern.jit
def calls_never(a):
    set_zero_call(a)


def llvm_calls(kernel, sig) -> int:
    """Calls in the kernel's LLVM IR, as numba's test_inline counts them (`call <type> @`)."""
    import re

    from numba.cuda import compiler

    from safekern.backends.numba import build as nc

    kernel.numba_dispatcher()
    rewritten = kernel.build.final_rewrite()
    fn = nc.compile_rewritten(rewritten, {n: d.numba_dispatcher()
                                           for n, d in rewritten.device_calls.items()})
    with nc.assume_device((9, 0)):
        cres = compiler.compile_cuda(fn, types.void, tuple(sig) + (types.int64,), cc=(9, 0))
    return len(re.findall(r"call [a-zA-Z0-9]* @", cres.library.get_llvm_str()))


def main():
    out = {}
    try:
        out["inline_always_llvm_calls"] = llvm_calls(calls_inline, (types.int32[::1],))
        out["inline_never_llvm_calls"] = llvm_calls(calls_never, (types.int32[::1],))
    except Exception as err:           # noqa: BLE001 - reported to the test
        out["inline_always_llvm_calls"] = f"{type(err).__name__}: {str(err)[:600]}"
    for name, (kernel, sig) in CASES.items():
        try:
            ptx = kernel.compile_ptx(sig, cc=(9, 0))
            out[name] = "ok" if ".entry" in ptx else "no entry point"
        except Exception as err:       # noqa: BLE001 - reported to the test
            out[name] = f"{type(err).__name__}: {str(err)[:600]}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
