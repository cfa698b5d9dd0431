"""Which launch path fails with a coarse-grain SVM argument on NVIDIA's OpenCL (INVALID_KERNEL_ARGS
in PyOpenCL's test_coarse_grain_svm under safekern.opencl)."""
import os, sys, traceback
import numpy as np, pyopencl as cl
import safekern, safekern.opencl as skcl
from safekern.backends.opencl import kernel as K
plat = [p for p in cl.get_platforms() if "NVIDIA" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1]); queue = cl.CommandQueue(ctx)
n = 3000; dtype = np.dtype(np.float32)
SRC = "__kernel void twice(__global float *a_g) { a_g[get_global_id(0)] *= 2; }"
orig = K._cl.enqueue_nd_range_kernel
for case in ("plainpyopencl", "safekern", "noplain", "nocache"):
    for opaque in (False, True):
        try:
            if opaque:
                svm = cl.SVMAllocation(ctx, n * 4, alignment=64, flags=cl.svm_mem_flags.READ_WRITE)
            else:
                svm = cl.SVM(cl.csvm_empty(ctx, (n,), dtype, alignment=64))
            cl.enqueue_svm_memfill(queue, svm, np.ones((), dtype))
            if case == "plainpyopencl":
                prg = cl.Program(ctx, SRC).build()
            else:
                os.environ["SAFEKERN_PLAIN_LAUNCHES"] = "0" if case == "noplain" else "1"
                os.environ["SAFEKERN_CACHE"] = "off" if case == "nocache" else os.environ.get("SAFEKERN_CACHE_KEEP", "")
                if not os.environ["SAFEKERN_CACHE"]:
                    del os.environ["SAFEKERN_CACHE"]
                safekern.config.reload() if hasattr(safekern.config, "reload") else None
                prg = skcl.Program(ctx, SRC + f"// {case} {opaque}\n").build()
            k = prg.twice
            used = []
            def spy(q, knl, *a, **kw):
                used.append("self" if knl is k else ("plain" if knl in getattr(k, "_plain_kernels", []) else "variant"))
                return orig(q, knl, *a, **kw)
            K._cl.enqueue_nd_range_kernel = spy
            try:
                prg.twice(queue, (n,), None, svm)
            finally:
                K._cl.enqueue_nd_range_kernel = orig
            queue.finish(); safekern.sync()
            print(case, opaque, "ok", used, getattr(k, "_replay", None))
        except Exception as e:
            print(case, opaque, "FAIL", used if 'used' in dir() else None, type(e).__name__, e, getattr(k, "_replay", None) if 'k' in dir() else None)
            traceback.print_exc(limit=4)
