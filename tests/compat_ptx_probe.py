"""Run without the simulator: compiles the constructs of tests/compat_kernels.py (and a
record read by field position) to PTX for sm_90 with numba-cuda's real typing and lowering (no
GPU needed); prints {kernel: "ok" or the error} as JSON for tests/test_numba_compat.py."""
import json

import numpy as np
from numba import types
from numba.cuda.np import numpy_support

import safekern
from tests import compat_kernels as K

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


def main():
    out = {}
    for name, (kernel, sig) in CASES.items():
        try:
            ptx = kernel.compile_ptx(sig, cc=(9, 0))
            out[name] = "ok" if ".entry" in ptx else "no entry point"
        except Exception as err:       # noqa: BLE001 - reported to the test
            out[name] = f"{type(err).__name__}: {str(err)[:600]}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
