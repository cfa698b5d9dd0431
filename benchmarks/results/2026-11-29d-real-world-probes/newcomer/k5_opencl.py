import os, sys, numpy as np, pyopencl as cl, pyopencl.array as cla
import safekern, safekern.opencl as skcl

SRC = r"""
#define WG 64

float smooth3(__global const float *a, int i, int n) {
    float l = i > 0 ? a[i - 1] : a[i];
    float r = i < n - 1 ? a[i + 1] : a[i];
    return (l + a[i] + r) / 3.0f;
}

__kernel void blur(__global const float *a, __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = smooth3(a, i, n);
}

__kernel void block_sum(__global const float *a, __global float *partial, __local float *sm, int n) {
    int lid = get_local_id(0);
    int gid = get_global_id(0);
    sm[lid] = gid < n ? a[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) sm[lid] += sm[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = sm[0];
}

__kernel void norm4(__global const float4 *v, __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) {
        float4 x = v[i];
        out[i] = sqrt(dot(x, x));
    }
}

__kernel void vload_sum(__global const float *a, __global float *out, int n4) {
    int i = get_global_id(0);
    if (i < n4) {
        float4 x = vload4(i, a);
        out[i] = x.x + x.y + x.z + x.w;
    }
}

__kernel void tile_stencil(__global const float *a, __global float *out, int n) {
    __local float tile[WG + 2];
    int lid = get_local_id(0);
    int gid = get_global_id(0);
    tile[lid + 1] = a[gid];
    if (lid == 0) tile[0] = gid > 0 ? a[gid - 1] : 0.0f;
    if (lid == WG - 1) tile[WG + 1] = a[gid + 1];          /* BUG: no check at the last group */
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[lid] + tile[lid + 1] + tile[lid + 2];
}
"""

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
print(ctx.devices)
prg = skcl.Program(ctx, SRC, filename="mykernels.cl").build()

n = 1000
a_h = np.random.rand(n).astype(np.float32)
a = cla.to_device(queue, a_h)
out = cla.empty_like(a)
prg.blur(queue, (1024,), (64,), a, out, np.int32(n))
ref = (np.r_[a_h[0], a_h[:-1]] + a_h + np.r_[a_h[1:], a_h[-1]]) / 3
assert np.allclose(out.get(), ref); print("blur ok")

part = cla.empty(queue, 16, np.float32)
prg.block_sum(queue, (1024,), (64,), a, part, cl.LocalMemory(64 * 4), np.int32(n))
assert np.isclose(part.get().sum(), a_h.sum(), rtol=1e-4); print("block_sum ok")

v_h = np.random.rand(n, 4).astype(np.float32)
v = cla.to_device(queue, v_h)
nrm = cla.empty(queue, n, np.float32)
prg.norm4(queue, (1024,), None, v, nrm, np.int32(n))
assert np.allclose(nrm.get(), np.linalg.norm(v_h, axis=1)); print("norm4 ok")

o4 = cla.empty(queue, n // 4, np.float32)
prg.vload_sum(queue, (256,), None, a, o4, np.int32(n // 4))
assert np.allclose(o4.get(), a_h.reshape(-1, 4).sum(1)); print("vload_sum ok")

print(prg.check_report())

m = 1024
b = cla.to_device(queue, np.arange(m, dtype=np.float32))
o = cla.empty_like(b)
prg.tile_stencil(queue, (m,), (64,), b, o, np.int32(m))
try:
    r = o.get()
    print("NO ERROR for planted bug")
except safekern.BoundsError as e:
    print("caught:", e)
