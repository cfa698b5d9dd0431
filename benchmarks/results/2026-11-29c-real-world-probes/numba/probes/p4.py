import numpy as np, warnings
from numba import cuda, float32
import safekern
warnings.simplefilter("ignore")
exec(open("/work/helper_numba/probes/p2.py").read().split("def transpose_oob")[0].split("warnings.simplefilter(\"ignore\")")[1])
def float_guard(out, a, x):
    i = cuda.grid(1)
    if i < x:
        out[i] = a[i]
expect(float_guard, lambda k, v: k[1, 16](*v), lambda: [np.zeros(16), np.zeros(8), 8.5])
def scalar_param_launch(out, a, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i]
for n in (np.int8(9), np.int32(9), 9, np.int64(9), np.uint8(9), np.float64(9.0)):
    expect(scalar_param_launch, lambda k, v: k[1, 16](*v), lambda: [np.zeros(16), np.zeros(8), n], f"(n={n!r})")
def shift_mask(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[(i * 7) & 15]
expect(shift_mask, lambda k, v: k[1, 8](*v), lambda: [np.zeros(8), np.zeros(14)])
