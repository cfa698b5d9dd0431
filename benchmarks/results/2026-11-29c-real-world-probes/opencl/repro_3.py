"""A helper function whose definition comes from a function-like macro invocation: the rewrite appends its hidden parameters inside the macro invocation -> the rewritten program does not build (reduced from Random123 philox.cl/threefry.cl shipped with PyOpenCL).

Run: PYOPENCL_TEST=portable /work/main/.venv/bin/python /work/helper_ocl/repro_3.py
Plain PyOpenCL (PoCL) builds SRC; safekern.opencl.Program(...).build() fails."""
import os
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402

SRC = r"""
#define DEF_ROTL(W) inline uint rotl##W(uint x, uint n) { return (x << n) | (x >> (W - n)); }
DEF_ROTL(32)
__kernel void k(__global uint *out)
{
    int i = get_global_id(0);
    out[i] = rotl32(out[i], 3u);
}
"""

plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
cl.Program(ctx, SRC).build()
print("plain PyOpenCL build: OK")
try:
    skcl.Program(ctx, SRC, filename="repro_3.cl").build()
    print("safekern build: OK (not reproduced)")
except Exception as e:
    print(f"safekern build FAILED: {type(e).__module__}.{type(e).__name__}: {e}")
    raise SystemExit(1)
