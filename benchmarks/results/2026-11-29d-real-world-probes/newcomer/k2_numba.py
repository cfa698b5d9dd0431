import warnings
import numpy as np
from numba import cuda, float32
import safekern

@cuda.jit(device=True)
def plain_get(a, i):
    return a[i]

@safekern.jit
def uses_plain(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = plain_get(a, i)

@safekern.jit(device=True)
def get2(a, i, j):
    return a[i, j]

@safekern.jit(device=True)
def row_sum(a, r):
    s = 0.0
    for j in range(a.shape[1] + 1):    # BUG
        s += get2(a, r, j)
    return s

@safekern.jit("void(float32[:], float32[:, :])")
def sums(out, a):
    r = cuda.grid(1)
    if r < a.shape[0]:
        out[r] = row_sum(a, r)

@safekern.jit
def local_arr(out, a):
    i = cuda.grid(1)
    buf = cuda.local.array(4, float32)
    for k in range(5):                 # BUG
        buf[k] = a[i]
    out[i] = buf[0]

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = cuda.device_array(64, np.float32)
    uses_plain[2, 32](out, cuda.to_device(np.arange(64, dtype=np.float32)))
    print("warnings:", [f"{x.category.__name__}: {x.message} ({x.filename}:{x.lineno})" for x in w])
try:
    safekern.sync(); print("plain device fn: no error (expected: unchecked)")
except Exception as e:
    print("plain device fn:", type(e).__name__, e)

out = cuda.device_array(8, np.float32)
sums[1, 8](out, cuda.to_device(np.ones((8, 5), np.float32)))
try:
    safekern.sync()
except safekern.BoundsError as e:
    print(e); print("call_chain:", e.call_chain)

out = cuda.device_array(32, np.float32)
local_arr[1, 32](out, cuda.to_device(np.ones(32, np.float32)))
try:
    safekern.sync()
except safekern.BoundsError as e:
    print(e)
