"""The PyOpenCL backend's face: `Program`, `Kernel`, `enqueue_nd_range_kernel`, re-exported
by `safekern.opencl` (see its docstring for the use)."""
from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ... import config, runtime
from . import build as backend
from ...errors import CompilationError, user_boundary
from ...report import CheckReport, ReportEntry, Status
from ...frontend.c.opencl import DEFAULT_FILENAME
from ..c_launch import CLaunchVariants, opencl_geometry
from ..overlap import OverlapCheck


class Program:
    """A checked `pyopencl.Program` built from OpenCL C source."""

    def __init__(self, context, source, filename: str | None = None):
        if isinstance(source, (bytes, bytearray)):
            source = bytes(source).decode("utf-8")
        if not isinstance(source, str):
            raise TypeError("safekern.opencl.Program checks OpenCL C source (a str); for "
                            "program binaries or SPIR-V use pyopencl.Program")
        if not isinstance(context, cl.Context):
            raise TypeError(f"expected a pyopencl.Context, not {type(context).__name__}")
        self.context = context
        self.source = source
        self.filename = filename or DEFAULT_FILENAME
        self._built = None
        self._kernels: dict[str, Kernel] = {}
        self._variants: dict = {}          # failure codes left out -> built launch variant

    @user_boundary          # an UnsupportedError shows the user's line, not the front end's
    def build(self, options=None, devices=None, cache_dir=None) -> "Program":
        """Check, rewrite and build the program; returns self. `cache_dir` is accepted for
        compatibility with PyOpenCL and ignored: safekern keeps built programs in its own
        cache (SAFEKERN_CACHE)."""
        del cache_dir
        self._built = backend.build_program(self.context, self.source, filename=self.filename,
                                            options=options, devices=devices)
        self._kernels = {}
        self._variants = {}
        return self

    def _variant(self, codes: frozenset):
        """The program built as a launch variant without the checks `codes` (once per
        set; through the kernel cache, whose key holds the codes)."""
        built = self._require_built()
        hit = self._variants.get(codes)
        if hit is None:
            hit = self._variants[codes] = backend.build_program(
                self.context, self.source, filename=self.filename, options=list(built.options),
                devices=list(built.devices) or None, assume=codes)
        return hit

    # -- PyOpenCL's Program interface ------------------------------------------------------------
    def _require_built(self):
        built = self.__dict__.get("_built")
        if built is None:
            raise RuntimeError(f"{self.filename}: call build() before using the program")
        return built

    @property
    def cl_program(self):
        """The underlying pyopencl.Program (of the checked source)."""
        return self._require_built().program

    def __getattr__(self, name: str) -> "Kernel":
        if name.startswith("_"):
            raise AttributeError(name)
        if self.__dict__.get("_built") is None:
            raise AttributeError(f"'{name}': the program is not built yet (call build())")
        try:
            return self._kernel(name)
        except cl.LogicError as err:
            raise AttributeError(f"'{name}' was not found as a program info attribute or as "
                                 "a kernel name") from err

    def _kernel(self, name: str) -> "Kernel":
        knl = self._kernels.get(name)
        if knl is None:
            knl = self._kernels[name] = Kernel(self, name)
        return knl

    def all_kernels(self) -> list:
        built = self._require_built()
        return [self._kernel(k.function_name) for k in built.program.all_kernels()]

    @property
    def kernel_names(self) -> str:
        """Semicolon-separated kernel names, as PyOpenCL's `kernel_names`."""
        return self._require_built().program.get_info(cl.program_info.KERNEL_NAMES)

    def get_info(self, param):
        return self._require_built().program.get_info(param)

    def get_build_info(self, device, param):
        return self._require_built().program.get_build_info(device, param)

    @property
    def int_ptr(self):
        return self._require_built().program.int_ptr

    # -- safekern ------------------------------------------------------------------------------
    @property
    def checked_source(self) -> str:
        """The source the driver built: the rewritten program, or the user's with checks off."""
        built = self._require_built()
        return built.rewritten.text if built.rewritten is not None else built.source

    def check_report(self) -> CheckReport:
        """Every access of the program: checked, proven safe, or unchecked with the reason."""
        built = self._require_built()
        if built.rewritten is None:
            return CheckReport([], filename=self.filename, checks=False)
        entries = list(built.rewritten.report)
        for name in self._driver_kernel_names():
            if name not in built.rewritten.kernels:
                entries.append(ReportEntry(name, 0, 0, f"kernel {name}", "", Status.UNCHECKED,
                                           "kernel defined outside the program's own source "
                                           "(an #include): not rewritten"))
        return CheckReport(entries, filename=self.filename)

    def _driver_kernel_names(self) -> list[str]:
        names = self._require_built().program.get_info(cl.program_info.KERNEL_NAMES)
        return [n for n in names.split(";") if n]

    def __repr__(self) -> str:
        state = "built" if self.__dict__.get("_built") is not None else "not built"
        return f"<safekern.opencl.Program {self.filename} ({state})>"


class Kernel:
    """A kernel of a checked program; called exactly like a pyopencl.Kernel."""

    def __init__(self, program: Program, name: str):
        built = program._require_built()
        self.program = program
        self.function_name = name
        self.cl_kernel = cl.Kernel(built.program, name)
        rewritten = built.rewritten
        self._info = rewritten.kernels.get(name) if rewritten is not None else None
        n = self._info.n_user_args if self._info else self.cl_kernel.num_args
        self._n_user = n
        self._values: dict[int, object] = {}
        self._dtypes = None
        names = [p.name for p in self._info.params] if self._info else []
        self._pointer_slots = {}      # user arg index -> (hidden index, parameter name)
        if self._info is not None:
            for k, p in enumerate(self._info.pointer_params):
                self._pointer_slots[p.index] = (n + 1 + k, p.name)
        self._param_names = names
        self._overlap = None          # buffer arguments that share memory (races.md)
        if self._info is not None:
            check = OverlapCheck(kernel=name, filename=program.filename,
                                 lineno=self._info.lineno,
                                 params=[(p.index, p.name) for p in self._info.pointer_params],
                                 written=self._info.written,
                                 unknown=self._info.writes_unknown)
            self._overlap = check if check.needed else None
        self._launch = None           # c_launch.CLaunchVariants: made at the first launch
        self._variant_kernels: list = []

    def _launch_variants(self):
        """The kernel's launch variants (None: it has no launch predicates, or
        SAFEKERN_LAUNCH_PREDICATES=0)."""
        if self._launch is None:
            info = self._info
            self._launch = False
            if info is not None and info.launch and config.get().launch_predicates and \
                    config.get().checks:
                self._launch = CLaunchVariants(info.launch, self._make_variant,
                                               python_int=False)
        return self._launch or None

    def _make_variant(self, codes):
        knl = cl.Kernel(self.program._variant(codes).program, self.function_name)
        if self._dtypes is not None:
            knl.set_scalar_arg_dtypes(self._all_dtypes())
        self._variant_kernels.append(knl)
        return knl

    def _all_dtypes(self):
        return self._dtypes + ([None] + [np.int64] * len(self._pointer_slots)
                               if self._info else [])

    def _scalar_values(self, args):
        """The scalar arguments as PyOpenCL passes them (converted by the dtypes set)."""
        if self._dtypes is None:
            return args
        out = list(args)
        for i, d in enumerate(self._dtypes[:len(out)]):
            if d is not None and i not in self._pointer_slots:
                try:
                    out[i] = np.dtype(d).type(out[i])
                except Exception:      # noqa: BLE001 -- PyOpenCL rejects it at the launch
                    pass
        return out

    def _check_overlap(self, args) -> None:
        self._overlap.check([backend.memory_span(args[i]) for i in self._overlap.positions])

    # -- calls ----------------------------------------------------------------------------------
    @user_boundary          # a RaceError (overlapping arguments) from the user's line
    def __call__(self, queue, global_size, local_size, *args, global_offset=None,
                 wait_for=None, g_times_l=False, allow_empty_ndrange=False):
        if len(args) != self._n_user:
            names = ", ".join(self._param_names)
            raise TypeError(f"kernel {self.function_name!r} takes {self._n_user} arguments"
                            f"{' (' + names + ')' if names else ''}, {len(args)} given")
        if self._overlap is not None:
            self._check_overlap(args)             # before anything runs
        cl_args, arrays = self._convert(args)
        knl = self.cl_kernel
        if self._info is None:
            extra = ()
            source = None
        else:
            source = backend.failure_source(queue.context, queue.device)
            sizes = tuple(self._size_value(args[i], i) for i in sorted(self._pointer_slots))
            extra = (source.buffer,) + sizes
            variants = self._launch if self._launch is not None else self._launch_variants()
            if variants:                      # the checks this launch proves left out
                knl = variants.for_launch(self._scalar_values(args), sizes, opencl_geometry,
                                          global_size, local_size, global_offset,
                                          g_times_l) or knl
        evt = knl(queue, global_size, local_size, *cl_args, *extra,
                             global_offset=global_offset, wait_for=wait_for,
                             g_times_l=g_times_l, allow_empty_ndrange=allow_empty_ndrange)
        self._launched(queue, source)
        for a in arrays:
            a.add_event(evt)
        return evt

    def _launched(self, queue, source):
        if source is None or not config.get().checks:
            backend.note_plain_launch(queue)
            return
        source.note_queue(queue)
        runtime.after_launch(source)

    def _convert(self, args):
        out, arrays = [], []
        for i, a in enumerate(args):
            if isinstance(a, cla.Array):
                arrays.append(a)
                a = backend.array_argument(a, self._name(i), self.function_name)
            out.append(a)
        return out, arrays

    def _name(self, i):
        return self._param_names[i] if i < len(self._param_names) else f"#{i}"

    def _size_value(self, arg, i):
        size = backend.hidden_size(arg, self._name(i), self.function_name)
        return size if self._dtypes is not None else np.int64(size)

    # -- set_arg / set_args / enqueue -------------------------------------------------------------
    def set_scalar_arg_dtypes(self, dtypes) -> None:
        dtypes = list(dtypes)
        self._dtypes = dtypes
        self.cl_kernel.set_scalar_arg_dtypes(self._all_dtypes())
        for knl in self._variant_kernels:
            knl.set_scalar_arg_dtypes(self._all_dtypes())

    set_arg_types = set_scalar_arg_dtypes

    def set_arg(self, index: int, value) -> None:
        if not 0 <= index < self._n_user:
            raise IndexError(f"kernel {self.function_name!r} has {self._n_user} arguments; "
                             f"no argument {index}")
        self._values[index] = value
        if isinstance(value, cla.Array):
            value = backend.array_argument(value, self._name(index), self.function_name)
        self.cl_kernel.set_arg(index, value)
        slot = self._pointer_slots.get(index)
        if slot is not None:
            size = backend.hidden_size(self._values[index], slot[1], self.function_name)
            self.cl_kernel.set_arg(slot[0], np.int64(size))

    def set_args(self, *args) -> None:
        if len(args) != self._n_user:
            raise TypeError(f"kernel {self.function_name!r} takes {self._n_user} arguments, "
                            f"{len(args)} given")
        for i, a in enumerate(args):
            self.set_arg(i, a)

    def _enqueue(self, queue, global_size, local_size, global_offset, wait_for, g_times_l,
                 allow_empty_ndrange):
        missing = [self._name(i) for i in range(self._n_user) if i not in self._values]
        if missing:
            raise TypeError(f"kernel {self.function_name!r}: arguments {missing} not set "
                            "(set_args)")
        if self._overlap is not None:
            self._check_overlap(self._values)
        source = None
        if self._info is not None:
            source = backend.failure_source(queue.context, queue.device)
            self.cl_kernel.set_arg(self._n_user, source.buffer)
        evt = cl.enqueue_nd_range_kernel(queue, self.cl_kernel, global_size, local_size,
                                         global_offset, wait_for, g_times_l=g_times_l,
                                         allow_empty_ndrange=allow_empty_ndrange)
        self._launched(queue, source)
        return evt

    # -- the rest of pyopencl.Kernel -----------------------------------------------------------
    @property
    def num_args(self) -> int:
        return self._n_user

    def get_info(self, param):
        if param == cl.kernel_info.NUM_ARGS:
            return self._n_user
        if param == cl.kernel_info.PROGRAM:
            return self.program
        return self.cl_kernel.get_info(param)

    def get_arg_info(self, index, param):
        if not 0 <= index < self._n_user:
            raise IndexError(f"kernel {self.function_name!r} has no argument {index}")
        return self.cl_kernel.get_arg_info(index, param)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.cl_kernel, name)

    def __repr__(self) -> str:
        return f"<safekern.opencl.Kernel {self.function_name!r} of {self.program.filename}>"


def enqueue_nd_range_kernel(queue, kernel, global_work_size, local_work_size,
                            global_work_offset=None, wait_for=None, g_times_l=False,
                            allow_empty_ndrange=False):
    """`pyopencl.enqueue_nd_range_kernel` for kernels whose arguments were given by set_args."""
    if isinstance(kernel, Kernel):
        return kernel._enqueue(queue, global_work_size, local_work_size, global_work_offset,
                               wait_for, g_times_l, allow_empty_ndrange)
    return cl.enqueue_nd_range_kernel(queue, kernel, global_work_size, local_work_size,
                                      global_work_offset, wait_for, g_times_l=g_times_l,
                                      allow_empty_ndrange=allow_empty_ndrange)


__all__ = ["Program", "Kernel", "enqueue_nd_range_kernel", "CheckReport", "ReportEntry",
           "CompilationError"]
