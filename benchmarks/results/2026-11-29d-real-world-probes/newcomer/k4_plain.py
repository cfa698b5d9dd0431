import sys
from numba import cuda

def k(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i, 0] * 2.0          # a is 1-D: typing error

def k2(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * scal           # typo
f = {"k": k, "k2": k2}[sys.argv[1]]
cuda.compile_ptx(f, "void(float32[:], float32[:])", cc=(9, 0))
