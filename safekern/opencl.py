"""Checked OpenCL C kernels through PyOpenCL: `import safekern.opencl as skcl`.

    prg = skcl.Program(ctx, source, filename="stencil.cl").build(options=["-cl-fast-relaxed-math"])
    prg.stencil(queue, (n,), (64,), a_buf, out_buf, np.int32(n))    # same call as PyOpenCL
    safekern.sync()              # or safekern.sync(queue): raises safekern.BoundsError
    print(prg.check_report())    # every access: checked / proven safe / unchecked (why)

    skcl.install()               # check every program the process builds, PyOpenCL's own too

`Program` is a `pyopencl.Program` and its kernels are `pyopencl.Kernel`s (subclasses): build,
compile + `cl.link_program`, kernel attributes, `cl.Kernel(prg, name)`, all_kernels(),
get_info, set_scalar_arg_dtypes, set_arg/set_args + `cl.enqueue_nd_range_kernel`,
capture_call work as in PyOpenCL; kernels also take pyopencl.array.Array for buffer
parameters. With SAFEKERN_CHECKS=0 the source is built unchanged. See docs/opencl.md.
"""
from .backends.opencl.api import (CheckReport, CompilationError, Kernel, Program, ReportEntry,
                                  enqueue_nd_range_kernel, install, installed, uninstall)

__all__ = ["Program", "Kernel", "enqueue_nd_range_kernel", "install", "uninstall", "installed",
           "CheckReport", "ReportEntry", "CompilationError"]
