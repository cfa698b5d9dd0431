import numpy as np
from numba import cuda
import safekern

@safekern.jit
def any_negative(flag, a):
    i = cuda.grid(1)
    if i < a.shape[0] and a[i] < 0:
        flag[0] = 1                       # benign race: every writer stores 1

@safekern.jit
def last_writer(out, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[0] = a[i]                     # real race

@safekern.jit
def shift_inplace(a):
    i = cuda.grid(1)
    if i < a.shape[0] - 1:
        a[i] = a[i + 1]                   # read/write race in place

a = cuda.to_device(np.array([1, -2, 3, -4] * 8, np.float32))
for k, args in ((any_negative, (cuda.to_device(np.zeros(1, np.int32)), a)),
                (last_writer, (cuda.device_array(1, np.float32), a)),
                (shift_inplace, (cuda.to_device(np.arange(32, dtype=np.float32)),))):
    try:
        k[1, 32](*args)
        safekern.sync()
        print(k.__name__ if hasattr(k, '__name__') else k, "ran")
    except Exception as e:
        print(type(e).__name__, ":", e)
