"""Checked OpenCL C kernels through PyOpenCL: `import safekern.opencl as skcl`.

    prg = skcl.Program(ctx, source, filename="stencil.cl").build(options=["-cl-fast-relaxed-math"])
    prg.stencil(queue, (n,), (64,), a_buf, out_buf, np.int32(n))    # same call as PyOpenCL
    safekern.sync()              # or safekern.sync(queue): raises safekern.BoundsError
    print(prg.check_report())    # every access: checked / proven safe / unchecked (why)

`Program` mirrors `pyopencl.Program` (build, kernel attributes, all_kernels(), kernel_names,
get_info, get_build_info); its kernels take the same arguments as PyOpenCL's, plus
pyopencl.array.Array for buffer parameters. `set_args` + `skcl.enqueue_nd_range_kernel` work as
in PyOpenCL. With SAFEKERN_CHECKS=0 the source is built unchanged. See docs/opencl.md.
"""
from .backends.opencl.api import (CheckReport, CompilationError, Kernel, Program, ReportEntry,
                                  enqueue_nd_range_kernel)

__all__ = ["Program", "Kernel", "enqueue_nd_range_kernel", "CheckReport", "ReportEntry",
           "CompilationError"]
