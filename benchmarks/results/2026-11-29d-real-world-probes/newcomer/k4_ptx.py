import sys
from numba import cuda
import safekern

@safekern.jit
def k(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i, 0] * 2.0          # a is 1-D: typing error

@safekern.jit
def k2(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * scal           # typo

@safekern.jit
def ok(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i + 1] * 2.0

ker = {"k": k, "k2": k2, "ok": ok}[sys.argv[1]]
ptx = ker.compile_ptx("void(float32[:], float32[:])", cc=(9, 0))
print(type(ptx).__name__, len(ptx))
