"""The PyOpenCL backend's face: `Program`, `Kernel`, `enqueue_nd_range_kernel`, `install`,
re-exported by `safekern.opencl` (see its docstring for the use).

`Program` is a pyopencl.Program and `Kernel` a pyopencl.Kernel (subclasses: program.py,
kernel.py); hooks.py says what changes in PyOpenCL's namespace and when.
"""
from __future__ import annotations

from ... import config
from ...errors import CompilationError
from ...report import CheckReport, ReportEntry
from .hooks import enqueue_nd_range_kernel, install, installed, uninstall
from .kernel import Kernel
from .program import Program

if config.get().opencl_all:         # SAFEKERN_OPENCL_ALL=1: check every program from now on
    install()

__all__ = ["Program", "Kernel", "enqueue_nd_range_kernel", "install", "uninstall", "installed",
           "CheckReport", "ReportEntry", "CompilationError"]
