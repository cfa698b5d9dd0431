# feature probes (patterns from the kernels above); run each under cuda.jit and safekern.jit
import numpy as np, traceback, sys
from numba import cuda, float32, int32
import safekern

def both(fn, launch, make):
    res = []
    for J in (cuda.jit, safekern.jit):
        args = make()
        try:
            k = J(fn)
            launch(k, args)
            safekern.sync()
            res.append([np.array(a.copy_to_host() if hasattr(a, "copy_to_host") else a) for a in args if hasattr(a, "shape") or hasattr(a, "copy_to_host")])
        except Exception as e:
            res.append(e)
    p, s = res
    name = fn.__name__
    if isinstance(p, Exception):
        print(f"{name}: PLAIN FAILS {type(p).__name__}: {str(p).splitlines()[0][:150]}"); return
    if isinstance(s, Exception):
        print(f"{name}: SAFE RAISED {type(s).__name__}: {str(s)[:400]}"); return
    eq = lambda a, b: np.array_equal(a.view(np.uint8), b.view(np.uint8)) if a.dtype.names else np.array_equal(a, b, equal_nan=True)
    same = all(eq(a, b) for a, b in zip(p, s))
    print(f"{name}: {'SAME' if same else 'DIFFERENT'}")
    if not same:
        for a, b in zip(p, s):
            if not eq(a, b): print("   plain", a.ravel()[:12], "\n   safe ", b.ravel()[:12])

def transpose_view(out, a):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a.T[i, j]
both(transpose_view, lambda k, a: k[(1, 1), (8, 8)](*a), lambda: [np.zeros((5, 3)), np.arange(15.).reshape(3, 5)])

def tuple_of_arrays(out, arrs):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = arrs[0][i] + arrs[1][i]
both(tuple_of_arrays, lambda k, a: k[1, 32](a[0], (a[1], a[2])), lambda: [np.zeros(10), np.arange(10.), np.arange(10.) * 2])

rec = np.dtype([("x", np.float64), ("v", np.float64, (3,))])
def record_field_array(out, r):
    i = cuda.grid(1)
    if i < r.shape[0]:
        for k in range(3):
            out[i] += r[i].v[k] * r[i]["x"]
        r[i].x = out[i]
def mk_rec():
    r = np.zeros(6, rec); r["x"] = np.arange(6); r["v"] = np.arange(18).reshape(6, 3)
    return [np.zeros(6), r]
both(record_field_array, lambda k, a: k[1, 8](*a), mk_rec)

def complex_parts(out, z):
    i = cuda.grid(1)
    if i < z.shape[0]:
        out[i] = z.real[i] - z.imag[i]
        z.imag[i] = 1.0
both(complex_parts, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5), (np.arange(5) + 2j * np.arange(5)).astype(np.complex128)])

def chained_store(a, b, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = b[i] = v[i] * 2
both(chained_store, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5), np.zeros(5), np.arange(5.)])

def walrus_and_ifexp(out, a, n):
    i = cuda.grid(1)
    if (j := i + 1) < n:
        out[i] = a[j] if j < a.shape[0] else -1.0
both(walrus_and_ifexp, lambda k, a: k[1, 8](a[0], a[1], 8), lambda: [np.zeros(8), np.arange(6.)])

def dyn_shared_views(out, a):
    sm = cuda.shared.array(0, dtype=float32)
    n = cuda.blockDim.x
    first = sm[:n]
    second = sm[n:]
    t = cuda.threadIdx.x
    first[t] = a[t]
    second[t] = a[t] * 2
    cuda.syncthreads()
    out[t] = first[n - 1 - t] + second[t]
both(dyn_shared_views, lambda k, a: k[1, 16, 0, 2 * 16 * 4](*a), lambda: [np.zeros(16, np.float32), np.arange(16, dtype=np.float32)])

def grid_sync(out, a):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] + 1
    g.sync()
    if i < a.shape[0]:
        a[i] = out[a.shape[0] - 1 - i]
both(grid_sync, lambda k, a: k[2, 16](*a), lambda: [np.zeros(20), np.arange(20.)])

def forall_kernel(out, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] ** 2
both(forall_kernel, lambda k, a: k.forall(a[0].size)(*a), lambda: [np.zeros(37), np.arange(37.)])

def atomic_index(out, counter, a):
    i = cuda.grid(1)
    if i < a.shape[0] and a[i] > 2:
        out[cuda.atomic.add(counter, 0, 1)] = a[i]
both(atomic_index, lambda k, a: k[1, 16](*a), lambda: [np.zeros(10), np.zeros(1, np.int32), np.arange(10.)])

def chain_index(out, a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i][j] = a[i][j] + a[i, ...][j] + a[..., j][i]
both(chain_index, lambda k, a: k[(1, 1), (4, 4)](*a), lambda: [np.zeros((3, 4)), np.arange(12.).reshape(3, 4)])

def aug_side_effect(a, idx, c):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        a[idx[cuda.atomic.add(c, 0, 1)]] += 1
both(aug_side_effect, lambda k, a: k[1, 8](*a), lambda: [np.zeros(4), np.array([0, 1, 1, 3, 2, 0]), np.zeros(1, np.int64)])

def neg_step_slice(out, a):
    i = cuda.grid(1)
    r = a[::-1]
    s = a[1::2]
    if i < s.shape[0]:
        out[i] = r[i] + s[i]
both(neg_step_slice, lambda k, a: k[1, 8](*a), lambda: [np.zeros(4), np.arange(9.)])

def local_2d_and_tuple_shape(out, a):
    loc = cuda.local.array((3, 4), dtype=float32)
    i = cuda.grid(1)
    if i < out.shape[0]:
        for r in range(3):
            for c in range(4):
                loc[r, c] = a[i] * r + c
        s = float32(0)
        for r in range(loc.shape[0]):
            for c in range(loc.shape[1]):
                s += loc[r, c]
        out[i] = s
both(local_2d_and_tuple_shape, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5, np.float32), np.arange(5, dtype=np.float32)])

def zero_d(out, a):
    out[()] = a[()] + 1
both(zero_d, lambda k, a: k[1, 1](*a), lambda: [np.zeros(()), np.array(41.0)])

def reshape_ravel(out, a):
    i = cuda.grid(1)
    f = a.reshape(a.size)
    if i < f.shape[0]:
        out[i] = f[i] + a.ravel()[i]
both(reshape_ravel, lambda k, a: k[1, 16](*a), lambda: [np.zeros(12), np.arange(12.).reshape(3, 4)])
