import numpy as np, cupy as cp
import safekern, safekern.cupy as skcp
results = []
def run(name, make, launch, arrays):
    outs = []
    for lib in ("cupy", "safekern"):
        try:
            k = make(cp if lib == "cupy" else skcp)
            ds = [cp.asarray(a.copy()) for a in arrays]
            launch(k, ds)
            cp.cuda.Device().synchronize()
            outs.append([cp.asnumpy(d) for d in ds])
        except Exception as e:
            results.append((name, lib, f"EXC {type(e).__name__}: {str(e)[:300]}"))
            print(results[-1], flush=True)
            return
    results.append((name, "ok" if all(a.tobytes() == b.tobytes() for a, b in zip(*outs)) else "WRONG"))
    print(results[-1], flush=True)

n = 1000
SRC_T = r'''
template<typename T>
__global__ void scale(const T* a, T* b, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * s;
}'''
def mk_t(lib):
    m = lib.RawModule(code=SRC_T, name_expressions=["scale<float>", "scale<double>"])
    return m
def l_t(m, ds):
    m.get_function("scale<float>")((4,), (256,), (ds[0], ds[1], np.float32(2), np.int32(n)))
    m.get_function("scale<double>")((4,), (256,), (ds[2], ds[3], np.float64(3), np.int32(n)))
run("template", mk_t, l_t, [np.arange(n, dtype=np.float32), np.zeros(n, np.float32), np.arange(n, dtype=np.float64), np.zeros(n)])

SRC_SH = r'''
extern "C" __global__ void red(const float* a, float* out, int n) {
  extern __shared__ float tmp[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tmp[t] = i < n ? a[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) { if (t < s) tmp[t] += tmp[t + s]; __syncthreads(); }
  if (t == 0) out[blockIdx.x] = tmp[0];
}'''
run("dynshared", lambda lib: lib.RawKernel(SRC_SH, "red"),
    lambda k, ds: k((4,), (256,), (ds[0], ds[1], np.int32(n)), shared_mem=256 * 4),
    [np.ones(n, np.float32), np.zeros(4, np.float32)])

SRC_C = r'''
__constant__ float coef[4];
extern "C" __global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3])); }
}'''
def mk_c(lib):
    m = lib.RawModule(code=SRC_C)
    g = m.get_global("coef")
    cp.ndarray((4,), cp.float32, g).set(np.array([1, 2, 3, 4], np.float32))
    return m
run("constant", mk_c, lambda m, ds: m.get_function("poly")((4,), (256,), (ds[0], ds[1], np.int32(n))),
    [np.linspace(0, 1, n, dtype=np.float32), np.zeros(n, np.float32)])

SRC_CX = r'''
#include <cupy/complex.cuh>
extern "C" __global__ void cmul(const complex<float>* a, complex<float>* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * complex<float>(0.f, 1.f) + conj(a[i]);
}'''
run("complex", lambda lib: lib.RawKernel(SRC_CX, "cmul"), lambda k, ds: k((4,), (256,), (ds[0], ds[1], np.int32(n))),
    [(np.arange(n) + 1j).astype(np.complex64), np.zeros(n, np.complex64)])

SRC_W = r'''
extern "C" __global__ void wsum(const float* a, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&out[0], v);
}'''
run("shfl_atomic", lambda lib: lib.RawKernel(SRC_W, "wsum"), lambda k, ds: k((4,), (256,), (ds[0], ds[1], np.int32(n))),
    [np.ones(n, np.float32), np.zeros(1, np.float32)])

SRC_H = r'''
#include <cuda_fp16.h>
__device__ __forceinline__ float twice(float x) { return 2.f * x; }
extern "C" __global__ void h(const __half* __restrict__ a, float* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    b[i] = twice(__half2float(a[i]));
}'''
run("half_gridstride", lambda lib: lib.RawKernel(SRC_H, "h"), lambda k, ds: k((2,), (128,), (ds[0], ds[1], np.uint64(n))),
    [np.arange(n).astype(np.float16), np.zeros(n, np.float32)])

SRC_2D = r'''
extern "C" __global__ void t2(const float* m, float* o, int rows, int cols, int ld) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) { const float* row = m + (size_t)r * ld; o[c * rows + r] = row[c]; }
}'''
run("2d_ptr", lambda lib: lib.RawKernel(SRC_2D, "t2"), lambda k, ds: k((4, 4), (16, 16), (ds[0], ds[1], np.int32(50), np.int32(60), np.int32(60))),
    [np.arange(50 * 60, dtype=np.float32), np.zeros(50 * 60, np.float32)])

def l_stream(k, ds):
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        k((4,), (256,), (ds[0], ds[1], np.int32(n)))
    s.synchronize()
SRC_V = r'''extern "C" __global__ void inc(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i] + 1.f; }'''
run("stream", lambda lib: lib.RawKernel(SRC_V, "inc"), l_stream, [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)])
run("nvcc", lambda lib: lib.RawKernel(SRC_V, "inc", backend="nvcc"), lambda k, ds: k((4,), (256,), (ds[0], ds[1], np.int32(n))),
    [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)])

# views: kernel on a slice
def l_view(k, ds):
    a = ds[0][10:]; b = ds[1][10:]
    k((4,), (256,), (a, b, np.int32(a.size)))
run("view", lambda lib: lib.RawKernel(SRC_V, "inc"), l_view, [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)])

ew = lambda lib: lib.ElementwiseKernel("raw T x, int32 k", "T y", "y = x[(i + k) % _ind.size()]", "rot")
def l_ew(k, ds):
    k(ds[0], np.int32(3), ds[1])
run("elementwise", ew, l_ew, [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)])

# OOB
try:
    k = skcp.RawKernel(r'''extern "C" __global__ void bad(const float* a, float* b, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i + 1]; }''', "bad")
    a = cp.arange(10, dtype=cp.float32); b = cp.zeros(10, cp.float32)
    k((1,), (32,), (a, b, np.int32(10)))
    b.get()
    results.append(("oob", "NOT RAISED at get"))
except IndexError as e:
    print("oob:", e); results.append(("oob", "ok"))
except Exception as e:
    results.append(("oob", f"EXC {type(e).__name__}: {e}"))
print(results[-1], flush=True)
import os
if os.environ.get('JITIFY'):
    run("jitify", lambda lib: lib.RawKernel(SRC_V, "inc", jitify=True), lambda k, ds: k((4,), (256,), (ds[0], ds[1], np.int32(n))), [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)])
