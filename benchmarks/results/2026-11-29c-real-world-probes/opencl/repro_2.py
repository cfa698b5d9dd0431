"""printf is unknown to safekern's libclang parse (seen: clEsperanto clij detect_maxima_3d_x.cl).

Run: PYOPENCL_TEST=portable /work/main/.venv/bin/python /work/helper_ocl/repro_2.py
Plain PyOpenCL (PoCL) builds SRC; safekern.opencl.Program(...).build() fails."""
import os
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402

SRC = r"""
__kernel void k(__global int *out)
{
    int i = get_global_id(0);
    printf("%d\n", i);
    out[i] = i;
}
"""

plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
cl.Program(ctx, SRC).build()
print("plain PyOpenCL build: OK")
try:
    skcl.Program(ctx, SRC, filename="repro_2.cl").build()
    print("safekern build: OK (not reproduced)")
except Exception as e:
    print(f"safekern build FAILED: {type(e).__module__}.{type(e).__name__}: {e}")
    raise SystemExit(1)
