"""Minimal repro: two programs built with the same filename= but different sources; a failure
in the second one is shown with the first one's source text (lines and carets)."""
import os
os.environ["SAFEKERN_CACHE"] = "/tmp/probe2-cache"
import numpy as np, pyopencl as cl
import safekern, safekern.opencl as skcl
A = """kernel void k(global float *out, int n) {
    int i = get_global_id(0);
    out[i] = 1.0f;
}
"""
B = """kernel void k(global float *out, int n) {
    int i = get_global_id(0);
    out[i + n] = 2.0f;
}
"""
plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1]); q = cl.CommandQueue(ctx)
pa = skcl.Program(ctx, A, filename="same.cl").build()
pb = skcl.Program(ctx, B, filename="same.cl").build()
out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
pb.k(q, (64,), None, out, np.int32(1))
try:
    q.finish()
except safekern.BoundsError as e:
    print(e); print("source_line attribute:", repr(e.source_line))
