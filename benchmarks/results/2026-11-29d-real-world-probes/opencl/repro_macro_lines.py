"""Minimal repro: a multi-line macro (backslash continuation) expanded by safekern shifts the
reported line of every later check in the kernel by one per expansion."""
import os
os.environ["SAFEKERN_CACHE"] = "/tmp/probe2-cache"
import numpy as np, pyopencl as cl
import safekern, safekern.opencl as skcl
SRC = """#define FLOORCEIL(x) {\\
    xm = (int) floor(x);\\
    xp = (int) ceil(x);\\
}
#define AT(arr, i) (arr[i])
kernel void k(global const float *a, global float *out, float x) {
    int xm, xp;
    int i = get_global_id(0);
    FLOORCEIL(x);
    float v = AT(a, i + xm);
    out[i + xp] = v;
}
"""
plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1]); q = cl.CommandQueue(ctx)
prg = skcl.Program(ctx, SRC, filename="macro.cl").build()
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4); out = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4)
for x, what in [(0.5, "out[i + xp] at line 11"), (-1.5, "a[i + xm] at line 10 (macro AT)")]:
    prg.k(q, (64,), None, a, out, np.float32(x))
    try:
        q.finish(); print("no error for", x)
    except safekern.BoundsError as e:
        print(f"expected {what}; got line {e.lineno}:\n{e}\n")
print(prg.checked_source.split('#line 1 "macro.cl"')[1])
