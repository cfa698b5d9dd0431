"""A kernel whose definition comes from a function-like macro invocation: the rewrite splices its prologue into the middle of the macro name and appends hidden parameters inside the invocation -> the rewritten program does not build (constructed while reducing repro_3's family; not seen in the corpus).

Run: PYOPENCL_TEST=portable /work/main/.venv/bin/python /work/helper_ocl/repro_4.py
Plain PyOpenCL (PoCL) builds SRC; safekern.opencl.Program(...).build() fails."""
import os
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402

SRC = r"""
#define DEF_K(T) \
__kernel void add_##T(__global T *a, __global const T *b) { int i = get_global_id(0); a[i] += b[i]; }
DEF_K(float)
"""

plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
cl.Program(ctx, SRC).build()
print("plain PyOpenCL build: OK")
try:
    skcl.Program(ctx, SRC, filename="repro_4.cl").build()
    print("safekern build: OK (not reproduced)")
except Exception as e:
    print(f"safekern build FAILED: {type(e).__module__}.{type(e).__name__}: {e}")
    raise SystemExit(1)
