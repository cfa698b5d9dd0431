# safekern names the array of an out-of-bounds access through a record's array field with its own
# generated code: array '_sk_load(r, i, <id>, _sk_fb, _sk_flag).v' instead of 'r[i].v'.
# Run: cd /work/main && NUMBA_ENABLE_CUDASIM=1 .venv/bin/python /work/helper_numba/repro_1.py
import numpy as np
from numba import cuda
import safekern

rec = np.dtype([("x", np.float64), ("v", np.float64, (3,))])

@safekern.jit
def k(out, r):
    i = cuda.grid(1)
    if i < r.shape[0]:
        for j in range(4):            # bug: v has 3 elements
            out[i] += r[i].v[j]

r = np.zeros(2, rec)
out = np.zeros(2)
try:
    k[1, 2](out, r)
    safekern.sync()
    print("no error")
except safekern.BoundsError as e:
    print(e)
    print("err.array =", repr(e.array))
    assert e.array == "r[i].v", "array name should be 'r[i].v'"
