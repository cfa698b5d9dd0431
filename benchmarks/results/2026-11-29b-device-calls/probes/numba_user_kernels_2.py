"""More numba-cuda kernels written as users write them, plain and checked (as
numba_user_kernels_1.py); `raise` and division by zero as failures. SIM=0 on a GPU."""
import os
os.environ["NUMBA_ENABLE_CUDASIM"] = os.environ.get("SIM", "1")
os.environ["SAFEKERN_CACHE"] = "off"
import math, numpy as np
from numba import cuda, float32, int32, uint32
import safekern
exec(open(os.path.join(os.path.dirname(__file__), "common.py")).read())

# later-defined device function
def k1(jit):
    @jit
    def f(a, o):
        i = cuda.grid(1)
        if i < a.shape[0]:
            o[i] = later(a, i)
    @jit(device=True)
    def later(a, i):
        return a[i] * 2 + a[(i + 1) % a.shape[0]]
    return f
check("later_dev", lambda: both(k1, lambda k, a, o: k[2, 64](a, o), np.arange(100.0), np.zeros(100)))

# device fn with default arg, keyword call
def k2(jit):
    @jit(device=True)
    def g(a, i, scale=2.0):
        return a[i] * scale
    @jit
    def f(a, o):
        i = cuda.grid(1)
        if i < a.shape[0]:
            o[i] = g(a, i) + g(a, i, scale=3.0)
    return f
check("dev_default", lambda: both(k2, lambda k, a, o: k[2, 64](a, o), np.arange(100.0), np.zeros(100)))

# const array
CT = np.arange(16, dtype=np.float32)
def k3(jit):
    @jit
    def f(a, o):
        c = cuda.const.array_like(CT)
        i = cuda.grid(1)
        if i < a.shape[0]:
            o[i] = a[i] + c[i % 16]
    return f
check("const", lambda: both(k3, lambda k, a, o: k[2, 64](a, o), np.arange(100, dtype=np.float32), np.zeros(100, np.float32)))

# warp intrinsics
def k4(jit):
    @jit
    def f(a, o):
        i = cuda.grid(1)
        v = a[i] if i < a.shape[0] else 0.0
        m = cuda.activemask()
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xffffffff, v, off)
        if cuda.laneid == 0 and i < a.shape[0]:
            o[i // 32] = v
    return f
check("shfl", lambda: both(k4, lambda k, a, o: k[2, 64](a, o), np.arange(128, dtype=np.float32), np.zeros(4, np.float32)))

# cas + misc intrinsics
def k5(jit):
    @jit
    def f(a, lock, o):
        i = cuda.grid(1)
        if i < a.shape[0]:
            old = cuda.atomic.compare_and_swap(lock, 0, 1)
            o[i] = cuda.popc(a[i]) + cuda.brev(a[i]) % 7 + cuda.selp(a[i] > 5, 1, 2)
            cuda.threadfence()
    return f
check("cas", lambda: both(k5, lambda k, a, l, o: k[2, 64](a, l, o), np.arange(100, dtype=np.uint32), np.zeros(1, np.uint32), np.zeros(100, np.uint32)) or True)

# enumerate / iterate over array, size, ndim, len
def k6(jit):
    @jit
    def f(m, o):
        i = cuda.grid(1)
        if i < len(o):
            s = 0.0
            for j, x in enumerate(m[i]):
                s += x * j
            o[i] = s + m.size + m.ndim
    return f
check("enumerate", lambda: both(k6, lambda k, m, o: k[2, 32](m, o), np.arange(50 * 4, dtype=np.float64).reshape(50, 4), np.zeros(50)))

# tuple index variable, uint index, 0-d array
def k7(jit):
    @jit
    def f(m, z, o):
        i, j = cuda.grid(2)
        if i < m.shape[0] and j < m.shape[1]:
            idx = (i, j)
            o[idx] = m[idx] + m[uint32(i), uint32(j)] + z[()]
    return f
check("tupleidx", lambda: both(k7, lambda k, m, z, o: k[(2, 2), (8, 8)](m, z, o), np.arange(100.0).reshape(10, 10), np.array(5.0), np.zeros((10, 10))))

# negative step range
def k8(jit):
    @jit
    def f(a, o):
        i = cuda.grid(1)
        if i < a.shape[0]:
            s = 0.0
            for j in range(i, -1, -2):
                s += a[j]
            o[i] = s
    return f
check("negstep", lambda: both(k8, lambda k, a, o: k[2, 64](a, o), np.arange(100.0), np.zeros(100)))

# raise / assert semantics: checked should raise at sync, plain numba silently ignores (no debug)
def raise_kernel():
    @safekern.jit
    def f(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            if a[i] < 0:
                raise ValueError("negative")
            a[i] = 1
    d = cuda.to_device(np.array([1.0, -1.0, 2.0]))
    f[1, 32](d)
    try:
        d.copy_to_host()
    except Exception as e:
        print("raise ->", type(e).__name__, str(e).splitlines()[0])
        return isinstance(e, ValueError)
    return False
check("raise", raise_kernel)

def divzero():
    @safekern.jit
    def f(a, b, o):
        i = cuda.grid(1)
        if i < a.shape[0]:
            o[i] = a[i] // b[i]
    d = cuda.to_device(np.array([4, 5, 6])); z = cuda.to_device(np.array([1, 0, 2])); o = cuda.device_array(3, np.int64)
    f[1, 32](d, z, o)
    try:
        o.copy_to_host()
    except Exception as e:
        print("div ->", type(e).__name__, str(e).splitlines()[0])
        return isinstance(e, ZeroDivisionError)
    return False
check("divzero", divzero)

# 2D OOB with negative under-run
def neg_oob():
    @safekern.jit
    def f(m, o):
        i = cuda.grid(1)
        if i < o.shape[0]:
            o[i] = m[i - 20, 0]
    m = cuda.to_device(np.zeros((10, 3))); o = cuda.device_array(10)
    f[1, 32](m, o)
    try:
        cuda.synchronize()
        o.copy_to_host()
    except IndexError as e:
        print("negoob ->", str(e).splitlines()[0])
        return "-20" in str(e) or "-11" in str(e) or "-19" in str(e)
    return False
check("neg_oob", neg_oob)

# kernel launched twice with different dtypes (two specialisations)
def k9(jit):
    @jit
    def f(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = a[i] + 1
    return f
def l9(k, a, b):
    k[1, 128](a); k[1, 128](b)
check("twotypes", lambda: both(k9, l9, np.arange(100, dtype=np.float32), np.arange(100, dtype=np.int16)))

for r in results: print(r)
