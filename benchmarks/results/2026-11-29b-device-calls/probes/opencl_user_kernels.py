import numpy as np, pyopencl as cl, pyopencl.array as cla
import safekern.opencl as skcl
_plats = cl.get_platforms()
_plat = next((p for p in _plats if "NVIDIA" in p.name), _plats[0])
ctx = cl.Context(_plat.get_devices()); q = cl.CommandQueue(ctx)
print("platform:", _plat.name, [d.name for d in _plat.get_devices()])
results = []
def run(name, src, kname, gsize, lsize, arrays, scalars=(), local_mem=None, options=()):
    outs = []
    for P in (cl.Program, skcl.Program):
        try:
            prg = P(ctx, src).build(options=list(options))
            bufs = [cla.to_device(q, a.copy()) for a in arrays]
            k = getattr(prg, kname)
            args = [b.data for b in bufs] + list(scalars)
            if local_mem is not None:
                args.append(cl.LocalMemory(local_mem))
            k(q, gsize, lsize, *args)
            outs.append([b.get() for b in bufs])
        except Exception as e:
            results.append((name, P.__module__, f"EXC {type(e).__name__}: {str(e)[:300]}"))
            return
    same = all(a.tobytes() == b.tobytes() for a, b in zip(*outs))
    results.append((name, "ok" if same else "WRONG"))

n = 100
run("vecadd", """
__kernel void add(__global const float *a, __global float *b, int n) {
  int i = get_global_id(0);
  if (i < n) b[i] = a[i] + 1.0f;
}""", "add", (128,), None, [np.arange(n, dtype=np.float32), np.zeros(n, np.float32)], [np.int32(n)])

run("local_reduce", """
__kernel void red(__global const float *a, __global float *out, __local float *tmp) {
  int l = get_local_id(0), g = get_global_id(0);
  tmp[l] = a[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}""", "red", (128,), (32,), [np.arange(128, dtype=np.float32), np.zeros(4, np.float32)], local_mem=32 * 4)

run("macros_helpers", """
#define IDX(r, c, w) ((r) * (w) + (c))
inline float sq(float x) { return x * x; }
float at(__global const float *m, int r, int c, int w) { return m[IDX(r, c, w)]; }
__kernel void k(__global const float *m, __global float *o, int w, int h) {
  int c = get_global_id(0), r = get_global_id(1);
  if (r < h && c < w) o[IDX(r, c, w)] = sq(at(m, r, c, w)) + at(m, r, (c + 1) % w, w);
}""", "k", (16, 16), None, [np.arange(10 * 12, dtype=np.float32), np.zeros(120, np.float32)], [np.int32(12), np.int32(10)])

run("vector_types", """
__kernel void v(__global const float4 *a, __global float4 *b, int n) {
  int i = get_global_id(0);
  if (i < n) { float4 x = a[i]; b[i] = x.wzyx + (float4)(1.0f); }
}""", "v", (32,), None, [np.arange(4 * 25, dtype=np.float32), np.zeros(100, np.float32)], [np.int32(25)])

run("atomics", """
__kernel void h(__global const int *d, __global int *hist, int n) {
  int i = get_global_id(0);
  if (i < n) atomic_inc(&hist[d[i] % 8]);
}""", "h", (128,), None, [np.arange(n, dtype=np.int32) * 7, np.zeros(8, np.int32)], [np.int32(n)])

run("ptr_arith", """
__kernel void rows(__global const float *m, __global float *o, int w, int h) {
  int r = get_global_id(0);
  if (r >= h) return;
  __global const float *row = m + r * w;
  float s = 0;
  for (int j = 0; j < w; ++j) s += row[j];
  o[r] = s;
}""", "rows", (16,), None, [np.arange(10 * 12, dtype=np.float32), np.zeros(10, np.float32)], [np.int32(12), np.int32(10)])

run("struct_local_array", """
typedef struct { float x; float y; } P2;
__kernel void s(__global const P2 *p, __global float *o, int n) {
  int i = get_global_id(0);
  float loc[4];
  for (int k = 0; k < 4; ++k) loc[k] = (float)k;
  if (i < n) o[i] = p[i].x * loc[i % 4] + p[i].y;
}""", "s", (64,), None, [np.arange(2 * 50, dtype=np.float32), np.zeros(50, np.float32)], [np.int32(50)])

run("while_gather", """
__kernel void chase(__global const int *nxt, __global int *o, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int j = i, c = 0;
  while (j > 0 && c < 1000) { j = nxt[j]; c++; }
  o[i] = c;
}""", "chase", (128,), None, [np.array([max(0, i - 3) for i in range(n)], np.int32), np.zeros(n, np.int32)], [np.int32(n)])

run("double_switch", """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void sw(__global double *a, int n) {
  int i = get_global_id(0);
  if (i < n) {
    switch (i % 3) { case 0: a[i] *= 2; break; case 1: a[i] += 1; break; default: a[i] = -a[i]; }
  }
}""", "sw", (128,), None, [np.arange(n, dtype=np.float64)], [np.int32(n)])

# OOB detection
try:
    prg = skcl.Program(ctx, """
__kernel void bad(__global const float *a, __global float *b, int n) {
  int i = get_global_id(0);
  if (i < n) b[i] = a[i + 1];
}""").build()
    a = cla.to_device(q, np.arange(10, dtype=np.float32)); b = cla.zeros(q, 10, np.float32)
    prg.bad(q, (10,), None, a.data, b.data, np.int32(10))
    b.get()
    q.finish()
    results.append(("oob", "NOT RAISED"))
except IndexError as e:
    print("oob:", e)
    results.append(("oob", "ok"))
except Exception as e:
    results.append(("oob", f"EXC {type(e).__name__}: {e}"))
for r in results: print(r)
