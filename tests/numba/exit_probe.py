"""Run without the simulator: PTX (sm_90, no GPU needed) of a BFS step checked and as numba
compiles it, and of kernels whose failing checks keep the flag; a JSON summary for
tests/numba/test_exit_at_check.py."""
import json
import sys

from numba import cuda

from safekern.backends.numba.build import assume_device
from tests.numba import exit_kernels as K
from tests.support.numba_probes import instructions


BFS = "void(int32[::1], int32[::1], uint8[::1], int32[::1], uint8[::1])"
CASES = {
    "bfs": BFS,
    "spmv": "void(int32[::1], int32[::1], float32[::1], float32[::1], float32[::1])",
    "bfs_barrier": "void(int32[::1], int32[::1], int32[::1], uint8[::1])",
    "loop_with_warp_call": "void(int64[::1], float32[::1])",
    "loop_with_aliased_warp_call": "void(int64[::1], float32[::1])",
}


def summarize(ptx: str) -> dict:
    body = ptx[ptx.find(".entry"):]
    return {"exit": "exit;" in body, "instructions": instructions(body),
            "cas64": body.count("atom.global.cas.b64")}


out = {}
with assume_device((9, 0)):
    out["bfs_plain"] = summarize(cuda.compile_ptx(K.bfs.py_func, BFS, cc=(9, 0))[0])
for name, sig in CASES.items():
    kernel = getattr(K, name)
    out[name] = summarize(kernel.compile_ptx(sig, cc=(9, 0)))
json.dump(out, sys.stdout)
