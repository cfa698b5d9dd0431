"""Shared helper for the repro scripts: build SRC plainly with PyOpenCL on PoCL, then with
safekern.opencl.Program; print both outcomes."""
import os
import sys
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402


def ctx():
    plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
    return cl.Context(plat.get_devices()[:1])


def check(src, options=(), filename="repro.cl"):
    c = ctx()
    cl.Program(c, src).build(list(options))
    print("plain PyOpenCL build: OK")
    try:
        skcl.Program(c, src, filename=filename).build(list(options))
        print("safekern build: OK")
        return True
    except Exception as e:  # noqa
        print(f"safekern build FAILED: {type(e).__module__}.{type(e).__name__}: {e}")
        return False
