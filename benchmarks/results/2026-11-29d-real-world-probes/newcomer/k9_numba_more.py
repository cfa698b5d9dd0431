import numpy as np
from numba import cuda, float32
import safekern

@safekern.jit
def dyn_rev(out, a):
    sm = cuda.shared.array(0, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = a[i]
    cuda.syncthreads()
    out[i] = sm[cuda.blockDim.x - 1 - t]

@safekern.jit
def hist2d(h, xs, ys):
    i = cuda.grid(1)
    if i < xs.shape[0]:
        cuda.atomic.add(h, (xs[i], ys[i]), 1)

@safekern.jit
def inc(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1

a = cuda.to_device(np.arange(64, dtype=np.float32))
out = cuda.device_array(64, np.float32)
dyn_rev[2, 32, 0, 32 * 4](out, a)
print("dyn ok:", out.copy_to_host()[:4])
dyn_rev[2, 32, 0, 16 * 4](out, a)          # BUG: too little dynamic shared memory
try:
    safekern.sync()
except safekern.BoundsError as e:
    print(e)

h = cuda.to_device(np.zeros((4, 4), np.int32))
xs = np.array([0, 1, 2, 3, 4], np.int64); ys = np.array([0, 1, 2, 3, 0], np.int64)
hist2d[1, 32](h, cuda.to_device(xs), cuda.to_device(ys))
try:
    safekern.sync()
except safekern.BoundsError as e:
    print(e)

d = cuda.to_device(np.zeros(100, np.float32))
inc.forall(100)(d)
print("forall:", d.copy_to_host().sum())
