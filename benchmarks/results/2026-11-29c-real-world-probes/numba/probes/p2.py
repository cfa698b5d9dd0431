# planted OOB in each construct: expect safekern.BoundsError naming the array
import numpy as np, warnings
from numba import cuda, float32
import safekern
warnings.simplefilter("ignore")

def expect(fn, launch, make, note=""):
    args = make()
    try:
        k = safekern.jit(fn)
        launch(k, args)
        safekern.sync()
        print(f"{fn.__name__}: NOT REPORTED {note}")
    except safekern.BoundsError as e:
        print(f"{fn.__name__}: BoundsError: {str(e).splitlines()[0]}")
    except Exception as e:
        print(f"{fn.__name__}: OTHER {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    try: safekern.sync()
    except Exception as e: print("   late:", type(e).__name__)

def transpose_oob(out, a):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a.T[i, j + 1]
expect(transpose_oob, lambda k, a: k[(1, 1), (8, 8)](*a), lambda: [np.zeros((5, 3)), np.arange(15.).reshape(3, 5)])

def tuple_arr_oob(out, arrs):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = arrs[0][i] + arrs[1][i + 1]
expect(tuple_arr_oob, lambda k, a: k[1, 32](a[0], (a[1], a[2])), lambda: [np.zeros(10), np.arange(10.), np.arange(10.) * 2])

rec = np.dtype([("x", np.float64), ("v", np.float64, (3,))])
def record_oob(out, r):
    i = cuda.grid(1)
    if i < r.shape[0]:
        for k in range(4):
            out[i] += r[i].v[k]
def mk_rec():
    r = np.zeros(6, rec); r["v"] = 1
    return [np.zeros(6), r]
expect(record_oob, lambda k, a: k[1, 8](*a), mk_rec, "(record field array r[i].v[3], v has 3)")

def record_oob2(out, r):
    i = cuda.grid(1)
    if i < r.shape[0]:
        out[i] = r[i + 1]["x"]
expect(record_oob2, lambda k, a: k[1, 8](*a), mk_rec)

def real_oob(out, z):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = z.real[i + 1]
expect(real_oob, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5), np.zeros(5, np.complex128)])

def dyn_second_oob(out, a):
    sm = cuda.shared.array(0, dtype=float32)
    n = cuda.blockDim.x
    second = sm[n:]
    t = cuda.threadIdx.x
    second[t + 1] = a[t]
    cuda.syncthreads()
    out[t] = second[t]
expect(dyn_second_oob, lambda k, a: k[1, 16, 0, 2 * 16 * 4](*a), lambda: [np.zeros(16, np.float32), np.arange(16, dtype=np.float32)])

def dyn_too_small(out, a):
    sm = cuda.shared.array(0, dtype=float32)
    t = cuda.threadIdx.x
    sm[t] = a[t]
    cuda.syncthreads()
    out[t] = sm[t]
expect(dyn_too_small, lambda k, a: k[1, 16, 0, 8 * 4](*a), lambda: [np.zeros(16, np.float32), np.arange(16, dtype=np.float32)], "(dynamic shared of 8 floats, 16 threads)")

def negstep_oob(out, a):
    i = cuda.grid(1)
    s = a[1::2]
    if i < out.shape[0]:
        out[i] = s[i]
expect(negstep_oob, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5), np.arange(9.)], "(a[1::2] has 4)")

def reshape_oob(out, a):
    i = cuda.grid(1)
    f = a.reshape(a.size)
    if i < out.shape[0]:
        out[i] = f[i]
expect(reshape_oob, lambda k, a: k[1, 16](*a), lambda: [np.zeros(13), np.arange(12.).reshape(3, 4)])

def local_oob(out, a):
    loc = cuda.local.array(4, dtype=float32)
    i = cuda.grid(1)
    if i < out.shape[0]:
        for c in range(5):
            loc[c] = a[i]
        out[i] = loc[0]
expect(local_oob, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5, np.float32), np.arange(5, dtype=np.float32)])

def neg_too_far(out, a):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i - 6]
expect(neg_too_far, lambda k, a: k[1, 8](*a), lambda: [np.zeros(5), np.arange(5.)], "(a[-6] with size 5)")

def ellipsis_oob(out, a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[..., j][i + 1]
expect(ellipsis_oob, lambda k, a: k[(1, 1), (4, 4)](*a), lambda: [np.zeros((3, 4)), np.arange(12.).reshape(3, 4)])

def chain_oob(out, a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i][j] = a[i][j + 1]
expect(chain_oob, lambda k, a: k[(1, 1), (4, 4)](*a), lambda: [np.zeros((3, 4)), np.arange(12.).reshape(3, 4)])

def zero_d_oob(out, a):
    out[0] = a[()]
expect(zero_d_oob, lambda k, a: k[1, 1](*a), lambda: [np.zeros(()), np.array(1.0)], "(0-d out indexed [0])")

def uint_idx(out, a, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]]
expect(uint_idx, lambda k, a: k[1, 8](*a), lambda: [np.zeros(3), np.arange(5.), np.array([0, 4, 2**64 - 1], np.uint64)], "(uint64 index 2**64-1)")

def int8_idx(out, a, idx):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i] + idx[i]]
expect(int8_idx, lambda k, a: k[1, 8](*a), lambda: [np.zeros(3), np.arange(300.), np.array([0, 100, 100], np.int8)], "(int8 100+100 wraps to -56 on numpy; index -56 is valid wrap of 300? )")
