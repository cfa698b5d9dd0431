"""Why PyOpenCL's test_coarse_grain_svm fails under safekern on NVIDIA's OpenCL (INVALID_KERNEL_ARGS):
the test's launches, every argument setter call safekern makes and the kernel each launch runs
logged; then the same launches with the setters PyOpenCL would call.

    PYOPENCL_TEST=nvidia python svm_probe.py
"""
import traceback

import numpy as np
import pyopencl as cl
import pyopencl._cl as _cl

import safekern.opencl as sko
from safekern.backends.opencl import arguments, kernel as K

SRC = """
__kernel void twice(__global float *a_g)
{
  a_g[get_global_id(0)] *= 2;
}
"""

log = []
catch_up = arguments.ArgumentLedger.catch_up


def logged_catch_up(self, knl, limit=None):
    log.append(("catch_up", type(knl).__name__, id(knl), limit,
                {i: (r[0], [type(x).__name__ for x in r[1]]) for i, r in self.records.items()}))
    return catch_up(self, knl, limit)


arguments.ArgumentLedger.catch_up = logged_catch_up
enqueue = K._cl.enqueue_nd_range_kernel


class _ClShim:
    def __getattr__(self, name):
        return getattr(_cl, name)

    @staticmethod
    def enqueue_nd_range_kernel(queue, knl, *a):
        log.append(("enqueue", type(knl).__name__, id(knl), knl.function_name,
                    knl.get_info(cl.kernel_info.NUM_ARGS) if type(knl) is not K.Kernel
                    else ("checked", _cl.Kernel.get_info(knl, cl.kernel_info.NUM_ARGS))))
        return enqueue(queue, knl, *a)


K._cl = _ClShim()

platform = [p for p in cl.get_platforms() if "NVIDIA" in p.name][0]
ctx = cl.Context(platform.get_devices())
queue = cl.CommandQueue(ctx)
print(platform.name, ctx.devices[0].name, "SVM caps", ctx.devices[0].svm_capabilities)
dtype, n = np.dtype(np.float32), 3000
for opaque in (False, True):
    log.clear()
    if opaque:
        svm_ary = cl.SVMAllocation(ctx, n * 4, alignment=64, flags=cl.svm_mem_flags.READ_WRITE)
    else:
        svm_ary = cl.SVM(cl.csvm_empty(ctx, (n,), dtype, alignment=64))
    cl.enqueue_svm_memfill(queue, svm_ary, np.zeros((), dtype))
    with svm_ary.map_rw(queue) as ary:
        ary = ary.view(dtype) if opaque else ary
        ary.fill(17)
    print(f"\n== opaque={opaque}: {type(svm_ary).__name__}, size {getattr(svm_ary, 'size', None)}")
    for maker in (cl.Program, sko.Program):
        log.clear()
        prg = maker(ctx, SRC).build()
        try:
            prg.twice(queue, (n,), None, svm_ary)
            log.append("-- launch 1 done")
            prg.twice(queue, (n,), None, svm_ary.as_buffer(ctx))
            log.append("-- launch 2 done")
            with svm_ary.map_ro(queue) as ary:
                ary = ary.view(dtype) if opaque else ary
                print(maker.__module__, "ok, values", ary[:3], ary[-1])
        except Exception:
            print(maker.__module__, "FAILED")
            traceback.print_exc()
        for entry in log:
            print("  ", entry)
