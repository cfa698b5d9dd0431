"""Run without the simulator: compiles checked kernels to PTX for sm_90 (no GPU needed) and
prints a JSON summary the PTX tests assert on."""
import json
import re
import sys

from tests.numba import body_versioning_kernels as BV
from tests.numba import numba_kernels as K
from tests.support.numba_probes import instructions

CASES = {
    "gather": "void(float32[::1], float32[::1], int64[::1])",
    "tiled_matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], int64)",
    "tree_reduce": "void(float32[::1], float32[::1], int64)",
    "histogram": "void(int32[::1], int64[::1], int64)",
    "calls_device": "void(float32[::1], float32[::1], int64)",
    "rowview": "void(float32[::1], float32[:, ::1], int64)",
    "guarded_copy": "void(float32[::1], float32[::1])",
    "row_sums": "void(float32[::1], float32[:, ::1], int64)",
    "window_sum": "void(float32[::1], float32[::1], int64, int64)",
    "add2d": "void(float32[:, ::1], float32[:, ::1], int64, int64)",
    "table_gathers": "void(int64[::1], int64[::1], int64)",
    "unused_read": "void(float32[::1], float32[::1], int64)",
}


_OUTLINED = re.compile(r"\.func\s*(\([^)]*\))?\s*\w*_sk_cold_\w*\((.|\n)*?\n\}")


def summarize(ptx: str) -> dict:
    # (a checked copy's records are calls of `_sk_record`, the module's record function:
    # backends/numba/cold_records.py; `calls` are the others, and its own body is left out;
    # a versioned body's checked copy outlined from an inlined device function,
    # `_sk_cold_<name>` (cold_bodies.py), is counted apart: `outlined_*`)
    ptx = re.sub(r"\.func\s+_sk_record\s*\([^)]*\)\s*\{(.|\n)*?\n\}", "", ptx)
    outlined = "".join(m.group(0) for m in _OUTLINED.finditer(ptx))
    body = _OUTLINED.sub("", ptx[ptx.find(".entry"):])
    records = len(re.findall(r"\b_sk_record,", body))
    outlined_calls = len(re.findall(r"\bcall(\.uni)?\s*(\([^)]*\),)?\s*\w*_sk_cold_", body))
    return {
        "outlined_functions": len(re.findall(r"\.func\s*(\([^)]*\))?\s*\w*_sk_cold_\w*\(",
                                             outlined)),
        "outlined_calls": outlined_calls,
        "outlined_record_calls": len(re.findall(r"\b_sk_record,", outlined)),
        "record_calls": records,
        "local": ".local" in body,
        "cas64": "atom.global.cas.b64" in body,
        "cas64_count": body.count("atom.global.cas.b64"),
        "global_loads": len(re.findall(r"\bld\.global\.", body)),
        "barrier_or": bool(re.search(r"bar\.red\.or\.pred|barrier\.red\.or|bar\.red\.popc", body)),
        "plain_bar_sync": bool(re.search(r"\bbar\.sync\b|barrier\.sync", body)),
        "calls": len(re.findall(r"\bcall(\.uni)?\b", body)) - records - outlined_calls,
        "lines": body.count("\n"),
        "instructions": instructions(body),
    }


# Body versioning (frontend/python/body_versioning.py): _sk_within's entry test lowered
BODY_VERSIONED = {
    "gather_corners": "void(float64[:, ::1], float64[:, ::1], float64[:, ::1], int64[::1], "
                      "int64[::1], float64[::1])",
    "gather_by_index": "void(float64[:, ::1], float64[::1])",
    "gather_corners_twice": "void(float64[:, ::1], float64[:, ::1], float64[:, ::1], "
                            "int64[::1], int64[::1], float64[::1])",
}

out = {}
for name, sig in CASES.items():
    out[name] = summarize(getattr(K, name).compile_ptx(sig, cc=(9, 0)))
for name, sig in BODY_VERSIONED.items():
    out[name] = summarize(getattr(BV, name).compile_ptx(sig, cc=(9, 0)))
json.dump(out, sys.stdout)
