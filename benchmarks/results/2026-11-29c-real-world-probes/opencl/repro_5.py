"""A call to a user helper inside a function defined by a function-like macro is refused with a plain CompilationError ('call of helper ... written through a macro'), although the macro is the user's own (docs/troubleshooting.md says uses of one's own macros are expanded in place and checked). Real-world: Random123 philox.cl (_philox2xWround_tpl -> mulhilo32) and threefry.cl (_threefry2x_tpl -> RotL_64) built as the program's main file.

Run: PYOPENCL_TEST=portable /work/main/.venv/bin/python /work/helper_ocl/repro_5.py
Plain PyOpenCL (PoCL) builds SRC; safekern.opencl.Program(...).build() fails."""
import os
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402

SRC = r"""
inline ulong rotl(ulong x, uint n) { return (x << (n & 63)) | (x >> ((64 - n) & 63)); }
#define DEF_R(W) \
inline ulong mix##W(ulong a) { return rotl(a, W); }
DEF_R(13)
__kernel void k(__global ulong *out)
{
    int i = get_global_id(0);
    out[i] = mix13(out[i]);
}
"""

plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
cl.Program(ctx, SRC).build()
print("plain PyOpenCL build: OK")
try:
    skcl.Program(ctx, SRC, filename="repro_5.cl").build()
    print("safekern build: OK (not reproduced)")
except Exception as e:
    print(f"safekern build FAILED: {type(e).__module__}.{type(e).__name__}: {e}")
    raise SystemExit(1)
