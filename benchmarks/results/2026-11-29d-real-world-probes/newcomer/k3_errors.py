import sys
import numpy as np
from numba import cuda
import safekern

which = sys.argv[1]
if which == "typo":
    @safekern.jit
    def k(out, a):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] * scal      # NameError: typo
elif which == "comp":
    @safekern.jit
    def k(out, a):
        i = cuda.grid(1)
        out[i] = sum([a[i + j] for j in range(4)])
elif which == "shape":
    @safekern.jit
    def k(out, a):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i, 0]          # a is 1-D
out = cuda.device_array(8, np.float32)
k[1, 8](out, cuda.to_device(np.ones(8, np.float32)))
print(out.copy_to_host())
