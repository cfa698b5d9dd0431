"""`safekern.opencl.Program`: a `pyopencl.Program` (a subclass) whose source is checked.

`Program(ctx, source)` is checked at `build()` (or `compile()`); the other forms PyOpenCL takes
(`Program(raw_program)`, `Program(ctx, devices, binaries)`, SPIR-V) are PyOpenCL's own, unless
they name a program safekern built: a raw program of a checked build (`Program.from_int_ptr`,
`Kernel.program`), the binaries read from one (`get_info(BINARIES)`), or `cl.link_program` of
checked `compile()`s -- those keep the hidden arguments of its kernels.

After `build()` the object's raw program (`_get_prg()`) is the checked one, so everything
PyOpenCL does with a Program (get_info, get_build_info, int_ptr, ==, cl.Kernel(prg, name))
works on the build that runs.
"""
from __future__ import annotations

import pyopencl as cl
import pyopencl._cl as _cl

from ...errors import user_boundary
from ...frontend.c.opencl import DEFAULT_FILENAME
from . import build as backend, linking, registry
from .kernel import Kernel
from .registry import checked_program_of

_ORIGINAL = cl.Program


def _is_source(arg2, arg3) -> bool:
    if arg3 is not None or not isinstance(arg2, (str, bytes, bytearray)):
        return False
    from pyopencl.tools import is_spirv
    return not is_spirv(arg2)


class Program(cl.Program):
    """A checked `pyopencl.Program` built from OpenCL C source."""

    def __init__(self, arg1, arg2=None, arg3=None, filename: str | None = None):
        self._built = None
        self._variants: dict = {}             # failure codes left out -> built launch variant
        self._variants_ok = False             # from the program's own source only
        self.filename = filename or DEFAULT_FILENAME
        if not _is_source(arg2, arg3):
            super().__init__(arg1, arg2, arg3)
            self.source_text = None
            derived = _derived(arg1, arg2, arg3)
            if derived is not None:           # the raw program or binaries of a checked one
                self._adopt(derived)
            return
        if not isinstance(arg1, cl.Context):
            raise TypeError(f"expected a pyopencl.Context, not {type(arg1).__name__}")
        source = bytes(arg2).decode("utf-8") if not isinstance(arg2, str) else arg2
        super().__init__(arg1, source)
        self.source_text = source

    def _adopt(self, owner: "Program") -> None:
        self._built = owner._built
        self.filename = owner.filename
        self.source_text = owner.source_text
        registry.by_handle[self._prg.int_ptr] = self

    def _is_checked(self) -> bool:
        return self.__dict__.get("_built") is not None

    @property
    def context(self):
        return self.__dict__.get("_context") or self._get_prg().get_info(
            cl.program_info.CONTEXT)

    # -- building ------------------------------------------------------------------------------
    @user_boundary          # an UnsupportedError shows the user's line, not the front end's
    def build(self, options=None, devices=None, cache_dir=None) -> "Program":
        """Check, rewrite and build the program; returns self. `cache_dir` is accepted for
        compatibility with PyOpenCL and ignored: safekern keeps built programs in its own
        cache (SAFEKERN_CACHE)."""
        del cache_dir
        if self.source_text is None:          # binaries, SPIR-V, a raw program: PyOpenCL's
            return super().build(options, devices)
        built = backend.build_program(self._ctx(), self.source_text, filename=self.filename,
                                      options=options, devices=devices)
        self._set_built(built, built.program._get_prg())
        self._variants_ok = True
        return self

    def _ctx(self):
        return self.context

    def _set_built(self, built, raw) -> None:
        self._built = built
        self._prg = raw
        self._variants = {}
        self._overlaps = {}
        self._kernels = {}
        registry.by_handle[raw.int_ptr] = self
        for hook in registry.on_checked_build:
            hook()

    def compile(self, options=None, devices=None, headers=None) -> "Program":
        """Check and compile (clCompileProgram) for `cl.link_program`; `headers` as PyOpenCL:
        (name, Program) pairs, whose text `#include` reads."""
        if self.source_text is None:
            return super().compile(options, devices, headers)
        built, raw = linking.compile_checked(self, options, devices, headers or [])
        self._set_built(built, raw)
        return self

    def _variant(self, codes: frozenset, checks: bool = True):
        """The program built as a launch variant without the checks `codes`, or with
        `checks=False` the user's own program (plain launches); once per form, through
        build_program like the program itself (the kernel cache keys on the codes)."""
        if not self._variants_ok:
            raise RuntimeError("launch variants need the program's own source build")
        built = self._require_built()
        key = (frozenset(codes), checks)
        hit = self._variants.get(key)
        if hit is None:
            hit = self._variants[key] = backend.build_program(
                self._ctx(), self.source_text, filename=self.filename,
                options=list(built.options), devices=list(built.devices) or None,
                assume=codes, checks=checks)
        return hit

    def _overlap_check(self, name, info):
        """The overlap check of kernel `name` (None: not needed), one per program and kernel."""
        from ..overlap import OverlapCheck

        checks = self.__dict__.setdefault("_overlaps", {})
        if name not in checks:
            check = OverlapCheck(kernel=name, filename=self.filename, lineno=info.lineno,
                                 params=[(p.index, p.name) for p in info.pointer_params],
                                 written=info.written, unknown=info.writes_unknown)
            checks[name] = check if check.needed else None
        return checks[name]

    def _require_built(self):
        built = self.__dict__.get("_built")
        if built is None:
            raise RuntimeError(f"{self.filename}: call build() before using the program")
        return built

    # -- PyOpenCL's Program interface ------------------------------------------------------------
    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_built", "_prg", "source_text"):
            raise AttributeError(name)
        if not self._is_checked():
            if self.source_text is not None and self.__dict__.get("_prg") is None:
                raise AttributeError(f"'{name}': the program is not built yet (call build())")
            return super().__getattr__(name)
        # One kernel per name (PyOpenCL makes a new one per retrieval and warns about the
        # cost): its launch variants and recorded arguments are kept.
        kernels = self.__dict__.setdefault("_kernels", {})
        knl = kernels.get(name)
        if knl is None:
            try:
                knl = kernels[name] = Kernel(self, name)
            except cl.LogicError as err:
                raise AttributeError(f"'{name}' was not found as a program info attribute or "
                                     "as a kernel name") from err
        return knl

    def all_kernels(self):
        if not self._is_checked():
            return super().all_kernels()
        return [Kernel(self, k.function_name) for k in self._prg.all_kernels()]

    def get_info(self, param):
        if param == cl.program_info.SOURCE and self.source_text is not None:
            return self.source_text               # the user's, as they gave it
        value = super().get_info(param)
        if param == cl.program_info.BINARIES and self._is_checked():
            for binary in value:                  # so that Program(ctx, devs, binaries) knows
                if binary:
                    registry.by_binary[registry.binary_key(binary)] = self
        return value

    @property
    def source(self):
        return self.get_info(cl.program_info.SOURCE)

    @property
    def binaries(self):
        return self.get_info(cl.program_info.BINARIES)

    @property
    def kernel_names(self) -> str:
        """Semicolon-separated kernel names, as PyOpenCL's `kernel_names`."""
        return self.get_info(cl.program_info.KERNEL_NAMES)

    @staticmethod
    def from_int_ptr(int_ptr_value: int, retain: bool = True):
        owner = registry.by_handle.get(int_ptr_value)
        if owner is not None:
            return owner
        return Program(_cl._Program.from_int_ptr(int_ptr_value, retain))

    # -- safekern ------------------------------------------------------------------------------
    @property
    def cl_program(self):
        """The underlying raw program of the checked build, as a pyopencl.Program."""
        return _ORIGINAL(self._require_built() and self._prg)

    @property
    def checked_source(self) -> str:
        """The source the driver built: the rewritten program, or the user's with checks off."""
        built = self._require_built()
        return built.rewritten.source if built.rewritten is not None else built.source

    def check_report(self):
        """Every access of the program: checked, proven safe, or unchecked with the reason."""
        from ...report import CheckReport, ReportEntry, Status

        built = self._require_built()
        if built.rewritten is None:
            return CheckReport([], filename=self.filename, checks=False)
        entries = list(built.rewritten.entries)
        names = self._prg.get_info(cl.program_info.KERNEL_NAMES)
        reported = {e.function for e in entries}     # (a kernel a macro writes says why)
        for name in (n for n in names.split(";") if n):
            if built.rewritten.kernel(name) is None and name not in reported:
                entries.append(ReportEntry(name, 0, 0, f"kernel {name}", "", Status.UNCHECKED,
                                           "kernel defined outside the program's own source "
                                           "(an #include): not rewritten"))
        return CheckReport(entries, filename=self.filename)

    def __eq__(self, other):
        return isinstance(other, _ORIGINAL) and self._get_prg() == other._get_prg()

    def __hash__(self):
        return hash(self._get_prg())

    def __repr__(self) -> str:
        state = "built" if self._is_checked() else "not built"
        return f"<safekern.opencl.Program {self.filename} ({state})>"


def _derived(arg1, arg2, arg3):
    """The checked program a raw program or a list of binaries came from, or None."""
    if arg2 is None:
        return checked_program_of(arg1)
    return registry.program_of_binaries(arg3) if arg3 is not None else None


__all__ = ["Program", "checked_program_of"]
