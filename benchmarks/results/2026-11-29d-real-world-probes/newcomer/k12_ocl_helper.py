import numpy as np, pyopencl as cl, pyopencl.array as cla
import safekern, safekern.opencl as skcl
SRC = r"""
float at(__global const float *a, int i) { return a[i]; }
__kernel void diff(__global const float *a, __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = at(a, i + 1) - at(a, i);   /* BUG at i = n-1 */
}
"""
ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
prg = skcl.Program(ctx, SRC).build()
a = cla.to_device(q, np.arange(64, dtype=np.float32)); out = cla.empty_like(a)
prg.diff(q, (64,), None, a, out, np.int32(64))
try:
    out.get()
except safekern.BoundsError as e:
    print(e)
