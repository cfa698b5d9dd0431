import numpy as np
from numba import cuda
import safekern

@safekern.jit
def write_len(meta, a):
    i = cuda.grid(1)
    meta[0] = a.shape[0]              # every thread writes the same value
    if i < a.shape[0]:
        a[i] *= 2

@safekern.jit
def write_param(meta, a, scale):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] *= scale
        meta[0] = scale               # same value from each thread

m = cuda.to_device(np.zeros(1, np.int64)); a = cuda.to_device(np.ones(32, np.float32))
for k, args in ((write_len, (m, a)), (write_param, (cuda.to_device(np.zeros(1, np.float32)), a, np.float32(2)))):
    try:
        k[1, 32](*args); safekern.sync(); print("ran")
    except Exception as e:
        print(type(e).__name__, ":", e)
