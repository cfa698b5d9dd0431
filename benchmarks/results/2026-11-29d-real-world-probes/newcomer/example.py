import numpy as np
from numba import cuda
import safekern

@safekern.jit                        # instead of @cuda.jit
def gather(out, src, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = src[idx[i]]

src = np.arange(256, dtype=np.float32)
idx = np.arange(64) * 3
idx[45] = 1_000_000                  # a bad index
d_out = cuda.device_array(64, dtype=np.float32)
gather[2, 32](d_out, cuda.to_device(src), cuda.to_device(idx))   # 2 blocks of 32 threads; returns at once
out = d_out.copy_to_host()           # raises safekern.BoundsError
