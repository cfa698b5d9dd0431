"""numba-cuda kernels written as users write them, plain (cuda.jit) and checked (safekern.jit):
the same bytes out, and one out-of-bounds access reported. SIM=0 on a GPU."""
import os
os.environ["NUMBA_ENABLE_CUDASIM"] = os.environ.get("SIM", "1")
os.environ["SAFEKERN_CACHE"] = "off"
import math, numpy as np
from numba import cuda, float32, int32
import safekern

exec(open(os.path.join(os.path.dirname(__file__), "common.py")).read())

# 1 grid(3)
def k1(jit):
    @jit
    def f(a):
        x, y, z = cuda.grid(3)
        if x < a.shape[0] and y < a.shape[1] and z < a.shape[2]:
            a[x, y, z] = x * 100 + y * 10 + z
    return f
check("grid3", lambda: both(k1, lambda k, a: k[(2, 2, 2), (4, 4, 4)](a), np.zeros((7, 5, 6), np.int32)))

# 2 dynamic shared memory
def k2(jit):
    @jit
    def f(a, out):
        sm = cuda.shared.array(0, dtype=float32)
        i = cuda.grid(1); t = cuda.threadIdx.x
        if i < a.shape[0]:
            sm[t] = a[i]
        cuda.syncthreads()
        if i < a.shape[0]:
            out[i] = sm[(t + 1) % cuda.blockDim.x] if i + 1 < a.shape[0] else sm[t]
    return f
check("dynshared", lambda: both(k2, lambda k, a, o: k[4, 32, 0, 32 * 4](a, o), np.arange(128, dtype=np.float32), np.zeros(128, np.float32)))

# 3 atomics 2D tuple index + max + cas
def k3(jit):
    @jit
    def f(data, hist, mx):
        i = cuda.grid(1)
        if i < data.shape[0]:
            v = data[i]
            cuda.atomic.add(hist, (v % 4, v % 3), 1)
            cuda.atomic.max(mx, 0, v)
    return f
check("atomics", lambda: both(k3, lambda k, d, h, m: k[4, 64](d, h, m), np.arange(200, dtype=np.int32) * 7 % 53, np.zeros((4, 3), np.int32), np.zeros(1, np.int32)))

# 4 device fn returning tuple
def k4(jit):
    @jit(device=True)
    def dm(a, i):
        return a[i] * 2, a[i] + 1
    @jit
    def f(a, o1, o2):
        i = cuda.grid(1)
        if i < a.shape[0]:
            x, y = dm(a, i)
            o1[i] = x; o2[i] = y
    return f
check("devtuple", lambda: both(k4, lambda k, a, b, c: k[2, 64](a, b, c), np.arange(100, dtype=np.float64), np.zeros(100), np.zeros(100)))

# 5 record arrays
rec = np.dtype([("x", np.float32), ("y", np.int32)])
def k5(jit):
    @jit
    def f(r, out):
        i = cuda.grid(1)
        if i < r.shape[0]:
            out[i] = r[i].x + r[i]["y"]
            r[i].y = i
    return f
check("records", lambda: both(k5, lambda k, r, o: k[2, 64](r, o), np.array([(i * 0.5, i) for i in range(100)], dtype=rec), np.zeros(100, np.float32)))

# 6 complex + .real view
def k6(jit):
    @jit
    def f(c, out):
        i = cuda.grid(1)
        if i < c.shape[0]:
            out[i] = abs(c[i]) + c.real[i] - c.imag[i]
            c[i] = c[i] * 1j
    return f
check("complex", lambda: both(k6, lambda k, c, o: k[2, 64](c, o), (np.arange(100) + 1j * np.arange(100)[::-1]).astype(np.complex128), np.zeros(100)))

# 7 while loop with data-dependent index, break/continue
def k7(jit):
    @jit
    def f(nxt, out):
        i = cuda.grid(1)
        if i < nxt.shape[0]:
            j = i; n = 0
            while j >= 0:
                n += 1
                if n > 50:
                    break
                if nxt[j] == j:
                    j = -1
                    continue
                j = nxt[j]
            out[i] = n
    return f
check("while", lambda: both(k7, lambda k, a, o: k[2, 64](a, o), np.array([max(0, i - 3) for i in range(100)], np.int64), np.zeros(100, np.int64)))

# 8 negative indices valid
def k8(jit):
    @jit
    def f(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = a[i - 1] + a[-1]
    return f
check("negidx", lambda: both(k8, lambda k, a, o: k[2, 64](a, o), np.arange(100, dtype=np.float64), np.zeros(100)))

# 9 local array
def k9(jit):
    @jit
    def f(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            loc = cuda.local.array(8, dtype=float32)
            for t in range(8):
                loc[t] = a[i] * t
            s = 0.0
            for t in range(8):
                s += loc[7 - t] * t
            out[i] = s
    return f
check("local", lambda: both(k9, lambda k, a, o: k[2, 64](a, o), np.arange(100, dtype=np.float32), np.zeros(100, np.float32)))

# 10 closure constants
def k10(jit):
    W = 3
    tbl = np.array([1.0, 2.0, 3.0])
    @jit
    def f(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            acc = 0.0
            for t in range(W):
                acc += tbl[t] * a[(i + t) % a.shape[0]]
            out[i] = acc
    return f
check("closure", lambda: both(k10, lambda k, a, o: k[2, 64](a, o), np.arange(100, dtype=np.float64), np.zeros(100)))

# 11 row views
def k11(jit):
    @jit
    def f(m, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            row = m[i, :]
            s = 0.0
            for j in range(row.shape[0]):
                s += row[j]
            out[i] = s
            m[i, 1:3] = 0
    return f
check("rowview", lambda: both(k11, lambda k, m, o: k[2, 32](m, o), np.arange(50 * 7, dtype=np.float64).reshape(50, 7), np.zeros(50)))

# 12 signature string
def k12(jit):
    @jit("void(float32[:], float32[:])")
    def f(a, b):
        i = cuda.grid(1)
        if i < a.shape[0]:
            b[i] = math.sqrt(a[i]) + math.sin(a[i])
    return f
check("sigstr", lambda: both(k12, lambda k, a, b: k[2, 64](a, b), np.arange(100, dtype=np.float32), np.zeros(100, np.float32)))

# 13 forall
def k13(jit):
    @jit
    def f(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] += 1
    return f
check("forall", lambda: both(k13, lambda k, a: k.forall(a.shape[0])(a), np.arange(100, dtype=np.float32)))

# 14 grid stride + 2D strided (non-contiguous) array
def k14(jit):
    @jit
    def f(a, out):
        start = cuda.grid(1); step = cuda.gridsize(1)
        for i in range(start, a.shape[0], step):
            out[i] = a[i, 0] * 2 + a[i, a.shape[1] - 1]
    return f
check("gridstride", lambda: both(k14, lambda k, a, o: k[3, 16](a, o), np.arange(300, dtype=np.float64).reshape(100, 3), np.zeros(100)))

# 15 OOB detection
def oob():
    @safekern.jit
    def f(a, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i + 1]
    a = cuda.to_device(np.arange(10, dtype=np.float32)); o = cuda.to_device(np.zeros(10, np.float32))
    f[1, 32](a, o)
    try:
        o.copy_to_host()
    except IndexError as e:
        print("OOB message:", e)
        return "a" in str(e) and "10" in str(e)
    return False
check("oob", oob)

# 16 stream and sharedmem launch params
def k16(jit):
    @jit
    def f(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = a[i] * 3
    return f
def l16(k, a):
    s = cuda.stream()
    k[2, 64, s](a)
    s.synchronize()
check("stream", lambda: both(k16, l16, np.arange(100, dtype=np.float32)))

# 17 recursion with types? (skip) ; 18 tuple of arrays argument
def k18(jit):
    @jit
    def f(arrs, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = arrs[0][i] + arrs[1][i]
    return f
def l18(k, a, b, o):
    k[2, 64]((a, b), o)
check("tupleargs", lambda: both(k18, l18, np.arange(100.0), np.ones(100), np.zeros(100)))

# 19 3D shared tile with 2D block
def k19(jit):
    @jit
    def f(a, out):
        tile = cuda.shared.array((16, 17), dtype=float32)
        x, y = cuda.grid(2)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        if x < a.shape[0] and y < a.shape[1]:
            tile[ty, tx] = a[x, y]
        cuda.syncthreads()
        bx = cuda.blockIdx.x * 16; by = cuda.blockIdx.y * 16
        ox, oy = by + tx, bx + ty
        if oy < a.shape[0] and ox < a.shape[1]:
            out[ox, oy] = tile[tx, ty]
    return f
check("transpose", lambda: both(k19, lambda k, a, o: k[(3, 3), (16, 16)](a, o), np.arange(40 * 40, dtype=np.float32).reshape(40, 40), np.zeros((40, 40), np.float32)))

for r in results: print(r)
