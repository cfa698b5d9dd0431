import time, sys
import numpy as np
from numba import cuda
import safekern
from k1_numba import *

t0 = time.time()
n = 1000
x = np.random.rand(n).astype(np.float32); y = np.random.rand(n).astype(np.float32)
d = cuda.device_array(n, np.float32)
saxpy[(n + 127) // 128, 128](d, np.float32(2), cuda.to_device(x), cuda.to_device(y))
assert np.allclose(d.copy_to_host(), 2 * x + y); print("saxpy ok", time.time() - t0)

A = np.random.rand(40, 50).astype(np.float32); B = np.random.rand(40, 50).astype(np.float32)
C = cuda.device_array_like(A)
madd[(3, 4), (16, 16)](C, cuda.to_device(A), cuda.to_device(B))
assert np.allclose(C.copy_to_host(), A + B); print("madd ok", time.time() - t0)

A = np.random.rand(40, 33).astype(np.float32); B = np.random.rand(33, 45).astype(np.float32)
C = cuda.device_array((40, 45), np.float32)
g = (2, 2)
matmul[g, (TPB, TPB)](C, cuda.to_device(A), cuda.to_device(B))
res = C.copy_to_host()
print("matmul max err", np.abs(res - A @ B).max(), time.time() - t0)

a = np.arange(100, dtype=np.float32)
out = cuda.device_array(100, np.float32)
blur[4, 32](out, cuda.to_device(a))
ref = (np.r_[a[0], a[:-1]] + a + np.r_[a[1:], a[-1]]) / 3
assert np.allclose(out.copy_to_host(), ref); print("blur ok", time.time() - t0)

data = np.random.rand(500).astype(np.float32)
hist = cuda.to_device(np.zeros(10, np.int32))
histogram[4, 128](hist, cuda.to_device(data), 10)
h = hist.copy_to_host(); assert (h == np.histogram(data, 10, (0, 1))[0]).all(), h; print("hist ok", time.time() - t0)

a = np.random.rand(1000).astype(np.float32)
part = cuda.device_array(8, np.float32)
block_sum[8, 128](part, cuda.to_device(a))
assert np.isclose(part.copy_to_host().sum(), a.sum(), rtol=1e-4); print("reduce ok", time.time() - t0)

a = np.random.rand(300).astype(np.float32)
out = cuda.to_device(np.zeros(300, np.float32))
stencil[(300 + BS - 1) // BS, BS](out, cuda.to_device(a))
o = out.copy_to_host()
ref = np.convolve(a, np.ones(5), 'same')
assert np.allclose(o[R:-R], ref[R:-R], atol=1e-5), (o[:8], ref[:8]); print("stencil ok", time.time() - t0)

for k in (saxpy, madd, matmul, blur, histogram, block_sum, stencil):
    rep = k.check_report()
    print(k.__name__ if hasattr(k, "__name__") else k, [(e["lineno"], e["array"], e["status"]) for e in rep])

a = np.arange(64, dtype=np.float32)
out = cuda.device_array(64, np.float32)
prefix_naive[2, 32](out, cuda.to_device(a))
try:
    out.copy_to_host()
    print("NO ERROR for off-by-one!")
except safekern.BoundsError as e:
    print("caught:", e)
print(prefix_naive.check_report())
