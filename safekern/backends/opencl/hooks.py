"""What safekern changes in PyOpenCL's namespace, and when.

At the first checked build (`install_kernel_hooks`), so that PyOpenCL's own ways to get and
launch a kernel work on checked programs:
- `pyopencl.Kernel` becomes safekern's Kernel: `cl.Kernel(prg, name)` of a checked program is a
  checked kernel; of any other program it is PyOpenCL's own kernel, as before (which then is
  no instance of `cl.Kernel`: PyOpenCL's kernel type cannot be given an instance check);
- `pyopencl.enqueue_nd_range_kernel(queue, kernel, ...)` after `set_arg`/`set_args` binds the
  failure buffer of the queue's device and notes the launch for the next sync point;
- `pyopencl.link_program` of checked `compile()`s gives a checked program.

`install()` ("check everything", SAFEKERN_OPENCL_ALL=1): `pyopencl.Program` becomes
safekern's, so that every program built from source in the process is checked, PyOpenCL's
own (pyopencl.array, ElementwiseKernel, ReductionKernel, scan, clrandom) included. A program
safekern cannot check yet is built as it is, with an UncheckedWarning.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings

import pyopencl as cl
import pyopencl._cl as _cl

from ...errors import UncheckedWarning
from . import registry
from .kernel import Kernel
from .linking import linked
from .program import Program

_lock = threading.RLock()
_kernel_hooks = False
_ORIGINAL = {"Kernel": cl.Kernel, "enqueue_nd_range_kernel": cl.enqueue_nd_range_kernel,
             "link_program": cl.link_program, "Program": cl.Program}


def enqueue_nd_range_kernel(queue, kernel, global_work_size, local_work_size,
                            global_work_offset=None, wait_for=None, g_times_l=False,
                            allow_empty_ndrange=False):
    """`pyopencl.enqueue_nd_range_kernel`, for checked kernels too (arguments by set_args)."""
    source = kernel._before_enqueue(queue) if isinstance(kernel, Kernel) else None
    evt = _cl.enqueue_nd_range_kernel(queue, kernel, global_work_size, local_work_size,
                                      global_work_offset, wait_for, g_times_l=g_times_l,
                                      allow_empty_ndrange=allow_empty_ndrange)
    if isinstance(kernel, Kernel):
        kernel._launched(queue, source)
    return evt


def link_program(context, programs, options=None, devices=None):
    """`pyopencl.link_program`; checked when a checked `compile()` is among `programs`."""
    programs = list(programs)
    result = _ORIGINAL["link_program"](context, programs, options, devices)
    return linked(result._get_prg(), programs, Program) or result


def install_kernel_hooks() -> None:
    global _kernel_hooks
    if _kernel_hooks:
        return
    with _lock:
        if not _kernel_hooks:
            cl.Kernel = Kernel
            cl.enqueue_nd_range_kernel = enqueue_nd_range_kernel
            cl.link_program = link_program
            _kernel_hooks = True


registry.on_checked_build.append(install_kernel_hooks)


# -- "check everything" -----------------------------------------------------------------------

_all_installed = False


def _builder_location() -> str:
    """Where the user's code asked for the program: the first frame outside PyOpenCL,
    safekern and pytools, as "file:line" (a program of PyOpenCL's library names it)."""
    skip = (os.path.dirname(cl.__file__), os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))), os.sep + "pytools" + os.sep)
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not any(s in path for s in skip) and not path.startswith("<"):
            return f"{path}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


def _library_caller() -> str | None:
    """The PyOpenCL module building a program (pyopencl.elementwise, ...), or None."""
    frame = sys._getframe(2)
    here = os.path.dirname(cl.__file__)
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(here):
            return frame.f_globals.get("__name__", "pyopencl")
        if "safekern" not in path:
            return None
        frame = frame.f_back
    return None


def _make_checked_everywhere():
    class _ProgramMeta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, _ORIGINAL["Program"])

        def __subclasscheck__(cls, sub):
            return issubclass(sub, _ORIGINAL["Program"])

    class AnyProgram(Program, metaclass=_ProgramMeta):
        """`pyopencl.Program` under `safekern.opencl.install()`: every source program checked;
        one safekern cannot check yet runs as it is, with an UncheckedWarning."""

        def __init__(self, arg1, arg2=None, arg3=None, filename=None):
            if filename is None and isinstance(arg2, (str, bytes)):
                library = _library_caller()
                if library is not None:
                    filename = f"<{library} kernel for {_builder_location()}>"
            super().__init__(arg1, arg2, arg3, filename=filename)

        def build(self, options=None, devices=None, cache_dir=None):
            if self.source_text is None:
                return super().build(options, devices, cache_dir)
            try:
                return super().build(options, devices, cache_dir)
            except Exception as err:      # noqa: BLE001 -- never break the user's program
                return self._plain_build(err, options, devices, cache_dir)

        def _plain_build(self, err, options, devices, cache_dir):
            _ORIGINAL["Program"].build(self, options, devices, cache_dir)
            # (built: safekern's refusal, not an error of the program's)
            warnings.warn(UncheckedWarning(
                f"safekern: {self.filename} runs unchecked: safekern cannot check it yet "
                f"({str(err).splitlines()[0]})"), stacklevel=3)
            return self

    AnyProgram.__name__ = AnyProgram.__qualname__ = "Program"
    AnyProgram.__module__ = "pyopencl"
    return AnyProgram


def install() -> None:
    """Check every OpenCL C program built from source in the process from now on."""
    global _all_installed
    install_kernel_hooks()
    with _lock:
        if _all_installed:
            return
        cl.Program = _make_checked_everywhere()
        _all_installed = True


def uninstall() -> None:
    """Undo `install()` (tests): programs built later are PyOpenCL's own again."""
    global _all_installed
    with _lock:
        cl.Program = _ORIGINAL["Program"]
        _all_installed = False


def installed() -> bool:
    return _all_installed


__all__ = ["install", "uninstall", "installed", "install_kernel_hooks",
           "enqueue_nd_range_kernel", "link_program"]
