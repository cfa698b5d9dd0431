"""Run without the simulator: compiles checked kernels to PTX for sm_90 (no GPU needed) and
prints, as JSON, for each: how many of numba's array struct proxies (`context.make_array`)
safekern's own lowering made (`proxies`), how many were made while lowering a checked load
(`load_proxies`: numba's getitem inside the load helper makes one) or a store (`store_proxies`:
numba's setitem), how many checked loads were lowered (`loads`), and how many failure records the PTX holds (`records`: CAS sites)."""
import json
import sys

from numba.cuda.np import arrayobj

from safekern.backends.numba import intrinsics
from tests.numba import numba_kernels as K

CASES = {
    "gather": "void(float32[::1], float32[::1], int64[::1])",
    "add2d": "void(float32[:, ::1], float32[:, ::1], int64, int64)",
    "tiled_matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], int64)",
    "window_sum": "void(float32[::1], float32[::1], int64, int64)",
    "histogram": "void(int32[::1], int64[::1], int64)",
}

made = []
in_load = []
in_store = []
_make_array = arrayobj.make_array


def _load_codegen(frame) -> bool:
    return frame.f_code.co_name == "codegen" and \
        frame.f_code.co_qualname.startswith("_load_typer.") and \
        frame.f_globals.get("__name__") == "safekern.backends.numba.intrinsics"


def _store_codegen(frame) -> bool:
    return frame.f_code.co_name == "codegen" and \
        frame.f_code.co_qualname.startswith(("_sk_store.", "_sk_put.")) and \
        frame.f_globals.get("__name__") == "safekern.backends.numba.intrinsics"


def _counting(typ):
    frame = sys._getframe(1)
    if frame.f_code.co_name == "make_array":      # context.make_array(typ)
        frame = frame.f_back
    if frame.f_globals.get("__name__", "").startswith("safekern."):
        made.append(frame.f_code.co_name)
    while frame is not None:
        if _load_codegen(frame):
            in_load.append(typ)
            break
        if _store_codegen(frame):
            in_store.append(typ)
            break
        frame = frame.f_back
    return _make_array(typ)


loads = []


def _counting_checks(emit):
    def counted(*args, **kw):
        if _load_codegen(sys._getframe(1)):
            loads.append(1)
        return emit(*args, **kw)
    return counted


arrayobj.make_array = _counting      # numba's getitem calls it; so does context.make_array
for _name in ("emit_checks", "select_load"):
    setattr(intrinsics, _name, _counting_checks(getattr(intrinsics, _name)))
out = {}
for name, sig in CASES.items():
    made.clear()
    in_load.clear()
    in_store.clear()
    loads.clear()
    ptx = getattr(K, name).compile_ptx(sig, cc=(9, 0))
    out[name] = {"proxies": len(made), "load_proxies": len(in_load), "loads": len(loads),
                 "store_proxies": len(in_store),
                 "records": ptx.count("atom.global.cas.b64")}
json.dump(out, sys.stdout)
