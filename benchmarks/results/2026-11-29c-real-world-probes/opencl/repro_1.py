"""as_<type>() reinterpretation builtins (as_uint, as_float, as_uint4, as_ulong, ...) are unknown to safekern's libclang parse (seen: silx bitonic.cl, codec/bitshuffle_lz4.cl, medfilt combo).

Run: PYOPENCL_TEST=portable /work/main/.venv/bin/python /work/helper_ocl/repro_1.py
Plain PyOpenCL (PoCL) builds SRC; safekern.opencl.Program(...).build() fails."""
import os
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402

SRC = r"""
__kernel void k(__global uint *out, __global const float *in)
{
    int i = get_global_id(0);
    out[i] = as_uint(in[i]);
}
"""

plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
cl.Program(ctx, SRC).build()
print("plain PyOpenCL build: OK")
try:
    skcl.Program(ctx, SRC, filename="repro_1.cl").build()
    print("safekern build: OK (not reproduced)")
except Exception as e:
    print(f"safekern build FAILED: {type(e).__module__}.{type(e).__name__}: {e}")
    raise SystemExit(1)
