"""Run without the simulator: compiles the call-chain kernels (call_chain_kernels.py) and the
device function `get` on its own to PTX for sm_90 (no GPU needed), and prints a JSON summary
test_call_chains.py asserts on."""
import json
import re
import sys

from safekern.backends.numba.build import assume_device
from tests.numba import call_chain_kernels as K


def summarize(ptx: str) -> dict:
    body = ptx[ptx.find(".entry"):] if ".entry" in ptx else ptx
    cas = body.find("atom.global.cas.b64")
    xor = body.find("xor.b64")
    # the instructions between the XOR and the record's compare-and-swap: no label (no
    # branch target) -- the XOR is in the record's own block, the failure path
    between = body[xor:cas] if 0 <= xor < cas else None
    return {
        "cas64_count": body.count("atom.global.cas.b64"),
        "xor_count": len(re.findall(r"\bxor\.b64\b", body)),
        "xor_in_record_block": between is not None and not re.search(r"^\s*\$L\w+:", between,
                                                                     re.M),
        "calls": len(re.findall(r"\bcall(\.uni)?\b", body)),
    }


# (a device function with a signature compiles when its caller does, for "the current
# device": an assumed one here, with no GPU)
with assume_device((9, 0)):
    out = {name: summarize(getattr(K, name).compile_ptx(sig, cc=(9, 0)))
           for name, sig in K.PTX_CASES.items()}
out["get"] = summarize(K.get.compile_ptx("float64(float64[::1], int64)", cc=(9, 0)))
out["twice"] = summarize(K.twice.compile_ptx("float64(float64)", cc=(9, 0)))
json.dump(out, sys.stdout)
