"""Run without the simulator: PTX (sm_90, no GPU needed) of a Perlin-like kernel's four
permutation-table gathers, checked and as numba compiles it; a JSON summary for
tests/numba/test_deferred_gathers.py."""
import json
import re
import sys

from numba import cuda

from safekern.backends.numba.build import assume_device
from tests.numba import gather_kernels as K

SIG = "void(int64[::1], float32[:, ::1])"


def loads_together(ptx: str) -> int:
    """The most global loads in a stretch of the kernel with no branch between them."""
    body = ptx[ptx.find(".entry"):]
    best = run = 0
    for line in body.splitlines():
        if re.search(r"\bld\.global", line):
            run += 1
            best = max(best, run)
        elif re.search(r"\bbra\b", line) or line.strip().endswith(":"):
            run = 0
    return best


with assume_device((9, 0)):
    plain = cuda.compile_ptx(K.perlin_like.py_func, SIG, cc=(9, 0))[0]
checked = K.perlin_like.compile_ptx(SIG, cc=(9, 0))
json.dump({"plain": loads_together(plain), "checked": loads_together(checked),
           "cas64": checked.count("atom.global.cas.b64")}, sys.stdout)
