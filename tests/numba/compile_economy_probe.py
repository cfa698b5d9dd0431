"""Run without the simulator: compiles checked kernels to PTX for sm_90 (no GPU needed) and
prints, as JSON, how many of numba's array struct proxies (`context.make_array`) safekern's
own lowering made for each, and how many checks the kernel's PTX records (CAS sites)."""
import json
import sys

from numba.cuda.core import base

from tests.numba import numba_kernels as K

CASES = {
    "gather": "void(float32[::1], float32[::1], int64[::1])",
    "add2d": "void(float32[:, ::1], float32[:, ::1], int64, int64)",
    "tiled_matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], int64)",
    "window_sum": "void(float32[::1], float32[::1], int64, int64)",
    "histogram": "void(int32[::1], int64[::1], int64)",
}

made = []
_make_array = base.BaseContext.make_array


def _counting(self, typ):
    caller = sys._getframe(1).f_globals.get("__name__", "")
    if caller.startswith("safekern."):
        made.append(caller)
    return _make_array(self, typ)


base.BaseContext.make_array = _counting
out = {}
for name, sig in CASES.items():
    made.clear()
    ptx = getattr(K, name).compile_ptx(sig, cc=(9, 0))
    out[name] = {"proxies": len(made), "records": ptx.count("atom.global.cas.b64")}
json.dump(out, sys.stdout)
