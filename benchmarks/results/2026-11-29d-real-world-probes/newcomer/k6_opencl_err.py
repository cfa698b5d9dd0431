import sys, numpy as np, pyopencl as cl, pyopencl.array as cla
import safekern, safekern.opencl as skcl

SRCS = {
"syntax": r"""
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0)
    if (i < n) a[i] = 2.0f * a[i];
}
""",
"barrier_if": r"""
__kernel void k(__global float *a, __local float *t, int n) {
    int i = get_global_id(0);
    int l = get_local_id(0);
    if (i < n) {
        t[l] = a[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        a[i] = t[(l + 1) % get_local_size(0)];
    }
}
""",
"undeclared": r"""
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    if (i < n) a[i] = 2.0f * b[i];
}
""",
"float4_bug": r"""
__kernel void k(__global const float4 *v, __global float *out, int n) {
    int i = get_global_id(0);
    if (i <= n) out[i] = v[i].x + v[i].w;    /* BUG: <= */
}
""",
}
which = sys.argv[1]
ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
prg = skcl.Program(ctx, SRCS[which], filename=f"{which}.cl").build()
n = 64
if which == "float4_bug":
    v = cla.to_device(q, np.ones((n, 4), np.float32)); out = cla.empty(q, n + 1, np.float32)
    prg.k(q, (n + 1,), None, v, out, np.int32(n))
    q.finish()
else:
    a = cla.to_device(q, np.ones(n, np.float32))
    if which == "barrier_if":
        prg.k(q, (n,), (16,), a, cl.LocalMemory(64), np.int32(n))
    else:
        prg.k(q, (n,), None, a, np.int32(n))
    print(a.get()[:4])
