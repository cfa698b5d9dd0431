"""CuPy backend: checked `RawKernel` / `RawModule` for CUDA C, compiled with NVRTC, cubins cached.

    k = RawKernel(code, "gather", options=("-std=c++17",))
    k((blocks,), (threads,), (out, src, idx, np.int32(n)))     # as cupy.RawKernel
    safekern.sync()

The source is rewritten (frontend.cuda) for the current device's architecture, compiled by
NVRTC (backends.nvrtc, not CuPy's compiler) to a cubin for exactly that architecture, stored in
the kernel cache, and loaded with `cupy.cuda.function.Module.load`: a warm start reads the
cubin back and never runs NVRTC. A launch appends the hidden arguments: the byte size of what
each pointer parameter receives, then the device's failure buffer (backends/cupy/program.py).

CuPy is imported when first needed; building a RawKernel and `check_report()` work without it.
Loading a checked module wraps CuPy's synchronisation calls as sync points (sync.py).
"""
from __future__ import annotations

import threading
import warnings

import numpy as np

from ... import config
from ...errors import UnsupportedError
from ...failures import TABLE
from ...report import ReportEntry, Status
from ...frontend.c import cuda as frontend
from . import graphs as cupy_graphs, sync as cupy_sync, nvrtc
from ..c_launch import CLaunchVariants, cuda_geometry
from ..capture import host_work_allowed
from ..overlap import OverlapCheck
from .program import (DEFAULT_ARCH, Binary, CupyFailureSource, Unchecked, _LRU, _cupy,
                      build_variant,
                      compile_options, compile_rewrite, device_arch, device_fields,
                      failure_source, hidden_argument, load_module, memory_span,
                      parse_include_dirs, pointer_bytes, unchecked)

# -- programs: one source, rewritten per architecture, loaded per device ------------------------

class _Loaded:
    """A module loaded on one device, with the names NVRTC lowered."""

    def __init__(self, module, lowered: dict, rewrite, source, device_id: int):
        self.module = module
        self.lowered = lowered
        self.rewrite = rewrite
        self.source = source
        self.device_id = device_id
        self._functions: dict[str, object] = {}
        self._lock = threading.Lock()

    def function(self, symbol: str):
        with self._lock:
            fn = self._functions.get(symbol)
            if fn is None:
                fn = self._functions[symbol] = self.module.get_function(symbol)
            return fn


_REWRITES = _LRU(256)     # (source, options, arch, checks, filename) -> CudaRewrite
_MODULES = _LRU(256)      # (device, checks, source, options, expressions, filename) -> _Loaded


class Program:
    """A CUDA C source and its options, shared by a RawModule and the kernels it hands out."""

    def __init__(self, code: str, options=(), name_expressions=(), filename: str = "kernel.cu"):
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, not {type(code).__name__}")
        self.code = code
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        self.filename = filename
        self._rewrites: dict[tuple, frontend.CudaRewrite] = {}
        self._loaded: dict[tuple, _Loaded] = {}
        self._lock = threading.RLock()
        self.launch_notes: dict[tuple, object] = {}   # unchecked arguments seen at launches
        self._overlaps: dict[tuple, object] = {}      # kernel -> OverlapCheck or None
        self._variants: dict[tuple, object] = {}      # launch variants' functions

    # -- rewriting -----------------------------------------------------------------------
    def default_arch(self) -> str:
        try:
            import cupy as cp

            if cp.cuda.runtime.getDeviceCount() > 0:
                return device_arch()[0]
        except Exception:
            pass
        return DEFAULT_ARCH

    def rewrite(self, arch: str | None = None, checks: bool | None = None):
        arch = nvrtc.normalize_arch(arch or self.default_arch())
        checks = config.get().checks if checks is None else checks
        asserts = config.get().kernel_asserts
        eliminate = config.get().eliminate
        launch = config.get().launch_predicates
        with self._lock:
            memo = (self.code, self.options, arch, checks, asserts, eliminate, launch,
                    self.filename)
            rw = self._rewrites.get((arch, checks, asserts, eliminate, launch)) or \
                _REWRITES.get(memo)
            if rw is None:
                try:
                    rw = frontend.rewrite(self.code, filename=self.filename,
                                          options=self.options, arch=arch,
                                          include_dirs=parse_include_dirs(self.options),
                                          checks=checks, kernel_asserts=asserts,
                                          eliminate=eliminate, launch_predicates=launch)
                except frontend.ParseError as err:
                    self._explain_parse_error(err, arch)
                    raise
                if checks:
                    self._warn_unchecked(rw)
                _REWRITES.put(memo, rw)
            self._rewrites[(arch, checks, asserts, eliminate, launch)] = rw
            return rw

    def variant_function(self, name: str, codes: frozenset):
        """The function of kernel `name` in the launch variant of the module without the
        checks of failure codes `codes` (program.build_variant), once per device and set."""
        device_id = _cupy().cuda.runtime.getDevice()
        settings = config.get()
        key = (device_id, settings.kernel_asserts, settings.eliminate, name, codes)
        with self._lock:
            hit = self._variants.get(key)
            if hit is None:
                with host_work_allowed():      # (see _bound)
                    hit = self._variants[key] = build_variant(self, name, codes, device_id)
            return hit

    def _explain_parse_error(self, err, arch):
        """When libclang cannot parse the source, NVRTC's verdict on the user's own source
        decides what to show: its error if it fails too, else safekern's limitation."""
        try:
            nvrtc.compile_program(self.code, filename=self.filename, arch=arch,
                                  options=compile_options(self.options), cubin=False)
        except nvrtc.NvrtcError as nv:
            raise nvrtc.to_compilation_error(nv, {self.filename: self.code},
                                             rewritten=False) from None
        except Exception:
            return

    def _warn_unchecked(self, rw):
        unchecked = rw.unchecked
        if unchecked:
            first = unchecked[0]
            warnings.warn_explicit(
                f"safekern: {len(unchecked)} access(es) in {self.filename} are not checked "
                f"(first: {first.reason}); see check_report()", UserWarning, self.filename,
                first.extra.get("lineno") or 0)

    def expressions(self, rw) -> tuple[str, ...]:
        """The user's name expressions, plus the names of non-template C++ kernels (so that
        get_function works with their plain or original mangled names)."""
        exprs = list(self.name_expressions)
        counts: dict[str, int] = {}
        for k in rw.kernels:
            counts[k.qualified] = counts.get(k.qualified, 0) + 1
        for k in rw.kernels:
            if not k.extern_c and not k.template and counts[k.qualified] == 1 and \
                    k.qualified not in exprs:
                exprs.append(k.qualified)
        return tuple(exprs)

    # -- loading -------------------------------------------------------------------------
    def loaded(self, log_stream=None, *, fresh: bool = False) -> _Loaded:
        cp = _cupy()
        device_id = cp.cuda.runtime.getDevice()
        checks = config.get().checks
        if checks:
            cupy_sync.install()
            cupy_graphs.install()
        key = (device_id, checks, config.get().kernel_asserts,
               config.get().launch_predicates)
        memo = (*key, self.code, self.options, self.name_expressions, self.filename)
        with self._lock:
            if not fresh:
                hit = self._loaded.get(key) or _MODULES.get(memo)
                if hit is not None:
                    self._loaded[key] = hit
                    return hit
            arch, cubin = device_arch(device_id)
            rw = self.rewrite(arch, checks)
            # What the module's failure codes mean, for sync() to name them: here, where a
            # module is built or loaded from the cache alike (the rewrite registers nothing).
            TABLE.register_all(rw.failure_sites)
            options = compile_options(self.options)
            exprs = self.expressions(rw)
            fields = device_fields(device_id)
            binary, module = compile_rewrite(
                rw, options=options, arch=arch, cubin=cubin, name_expressions=exprs,
                device_fields=fields, log_stream=log_stream, load=load_module)
            source = failure_source(device_id) if checks else None
            loaded = _Loaded(module, binary.lowered, rw, source, device_id)
            self._loaded[key] = loaded
            _MODULES.put(memo, loaded)
            return loaded

    def resolve(self, rw, lowered: dict, name: str):
        """(symbol in the module, KernelInfo) for a name as CuPy's get_function takes it: a
        name expression, an extern "C" name, or the (original) mangled name."""
        if name in lowered:
            infos = rw.find_kernels(name)
            symbol = lowered[name]
        else:
            infos = [k for k in rw.kernels if k.extern_c and k.name == name]
            symbol = name
            if not infos:
                infos = [k for k in rw.kernels if not k.extern_c and not k.template and
                         name in (k.mangled, k.name, k.qualified)]
                symbol = lowered.get(infos[0].qualified) if infos else None
        if not infos or symbol is None:
            known = ", ".join(sorted({k.name for k in rw.kernels})) or "none"
            templ = [k.name for k in rw.kernels if k.template]
            hint = (f"; templates need name_expressions=['{templ[0]}<...>']" if templ else "")
            raise ValueError(f"no kernel {name!r} in {self.filename} (kernels: {known}){hint}")
        shapes = {tuple(p.pointer for p in k.params) for k in infos}
        if len(shapes) > 1:
            raise ValueError(f"{name!r} names overloaded kernels with different pointer "
                             "parameters; use a name expression with the exact signature")
        return symbol, infos[0]

    def note_unchecked(self, info, param: str, position: int) -> None:
        key = (info.name, param)
        if key not in self.launch_notes:
            self.launch_notes[key] = ReportEntry(
                info.name, info.lineno, 0, f"argument {position} ('{param}') of a launch",
                param, Status.UNCHECKED, "marked skcp.unchecked() at launch: accesses through "
                f"'{param}' are not bounded")

    def overlap_check(self, info):
        """The launch-time overlap check of a kernel (None when it writes no pointer
        parameter), shared by every RawKernel of this source: one warning per kernel and
        pair, however many get_function() calls hand the kernel out."""
        key = (info.qualified, info.mangled, tuple(p.name for p in info.params))
        with self._lock:
            if key not in self._overlaps:
                check = OverlapCheck(kernel=info.name, filename=self.filename,
                                     lineno=info.lineno,
                                     params=[(i, p.name) for i, p in enumerate(info.params)
                                             if p.pointer],
                                     written=info.written, unknown=info.writes_unknown)
                self._overlaps[key] = check if check.needed else None
            return self._overlaps[key]

    def check_report(self):
        rw = self.rewrite()
        report = rw.report()
        report.extend(self.launch_notes.values())
        return report


# -- the user-facing classes ------------------------------------------------------------------

def _reject_options(*, backend, translate_cucomplex, enable_cooperative_groups, jitify):
    if backend != "nvrtc":
        raise UnsupportedError(f"backend={backend!r}: safekern.cupy compiles with NVRTC only "
                               "(backend='nvrtc')")
    if translate_cucomplex:
        raise UnsupportedError("translate_cucomplex=True is not supported by safekern.cupy; "
                               "include <cupy/complex.cuh> and use complex<float> instead")
    if enable_cooperative_groups:
        raise UnsupportedError(
            "enable_cooperative_groups=True (grid-wide synchronisation) cannot be made safe: "
            "a thread that fails a check exits and the grid would wait for it. Block-level "
            "cooperative groups (this_thread_block().sync()) need no option")
    if jitify:
        raise UnsupportedError("jitify=True is not supported by safekern.cupy")


# CUfunction_attribute, in CUDA's order (its values are 0..9).
_ATTRIBUTES = ("max_threads_per_block", "shared_size_bytes", "const_size_bytes",
               "local_size_bytes", "num_regs", "ptx_version", "binary_version", "cache_mode_ca",
               "max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout")


def _attribute_id(cp, name: str) -> int:
    return getattr(cp.cuda.driver, "CU_FUNC_ATTRIBUTE_" + name.upper(),
                   _ATTRIBUTES.index(name))


class RawKernel:
    """Checked drop-in for `cupy.RawKernel`: same arguments, same call.

    `filename=` names the source in messages (default: '<name>.cu'); line numbers are the
    source string's own. Pointer parameters must receive CuPy arrays (their size bounds the
    accesses) or `skcp.unchecked(ptr)`.
    """

    def __init__(self, code: str, name: str, options=(), backend: str = "nvrtc", *,
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False,
                 jitify: bool = False, filename: str | None = None, _program=None):
        _reject_options(backend=backend, translate_cucomplex=translate_cucomplex,
                        enable_cooperative_groups=enable_cooperative_groups, jitify=jitify)
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        self.code = code
        self.name = self.__name__ = name
        self.options = tuple(options)
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify
        self._program = _program or Program(code, options, (), filename or f"{name}.cu")
        self.filename = self._program.filename
        self._launch_cache: dict = {}

    # -- CuPy's interface ----------------------------------------------------------------
    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None,
                 enable_cooperative_groups: bool = False):
        if enable_cooperative_groups:
            _reject_options(backend="nvrtc", translate_cucomplex=False,
                            enable_cooperative_groups=True, jitify=False)
        if not isinstance(args, (tuple, list)):
            raise TypeError(f"kernel arguments must be a tuple, not {type(args).__name__}")
        loaded, func, info, overlap, variants = self._bound()
        args = tuple(args)
        if len(args) != len(info.params):
            names = ", ".join(p.name or "?" for p in info.params)
            raise TypeError(f"kernel '{info.name}' takes {len(info.params)} arguments "
                            f"({names}), got {len(args)}")
        if loaded.source is None or not info.checked:   # SAFEKERN_CHECKS=0, or a kernel
            func(grid, block, args, shared_mem=shared_mem, stream=stream)   # left unchanged
            return
        values, sizes, spans = [], [], []
        for i, (arg, param) in enumerate(zip(args, info.params)):
            if param.pointer:
                value, nbytes = hidden_argument(arg, param.name, info.name, i)
                if nbytes < 0:
                    self._program.note_unchecked(info, param.name, i)
                values.append(value)
                sizes.append(np.int64(nbytes))
                if overlap is not None:
                    spans.append(memory_span(value, nbytes))
            else:
                values.append(arg)
        if overlap is not None:
            overlap.check(spans)                 # before anything runs
        if variants is not None:                 # the checks this launch proves left out
            func = variants.for_launch(args, sizes, cuda_geometry, grid, block) or func
        func(grid, block, tuple(values) + tuple(sizes) + (loaded.source.buffer,),
             shared_mem=shared_mem, stream=stream)
        cupy_graphs.after_launch(loaded.source, stream)     # (pending, or captured)

    def _bound(self):
        """(loaded module, function, KernelInfo) for the current device and check setting;
        looked up once, then served from a small per-kernel table (launches are hot)."""
        cp = _cupy()
        settings = config.get()
        key = (cp.cuda.runtime.getDevice(), settings.checks, settings.kernel_asserts,
               settings.launch_predicates)
        hit = self._launch_cache.get(key)
        if hit is None:
            # A first launch may come inside a stream capture: the host work (and whatever
            # the garbage collector frees meanwhile) in the relaxed capture mode.
            with host_work_allowed():
                loaded = self._program.loaded()
            symbol, info = self._program.resolve(loaded.rewrite, loaded.lowered, self.name)
            variants = None
            if loaded.source is not None and info.checked and info.launch and \
                    settings.launch_predicates:
                program, name = self._program, self.name
                variants = CLaunchVariants(
                    info.launch, lambda codes: program.variant_function(name, codes),
                    python_int=True)
            hit = self._launch_cache[key] = (loaded, loaded.function(symbol), info,
                                             self._program.overlap_check(info), variants)
        return hit

    @property
    def kernel(self):
        """The cupy.cuda.function.Function of the current device."""
        return self._bound()[1]

    def compile(self, log_stream=None):
        # As CuPy's: the module already loaded on this device is kept (a reload would lose
        # its __device__/__constant__ variables, which get_global() handed out).
        self._launch_cache.clear()
        self._program.loaded(log_stream)

    @property
    def attributes(self) -> dict:
        return {name: getattr(self, name) for name in _ATTRIBUTES}

    def _get_attr(self, name):
        cp = _cupy()
        return cp.cuda.driver.funcGetAttribute(_attribute_id(cp, name), self.kernel.ptr)

    def _set_attr(self, name, value):
        cp = _cupy()
        cp.cuda.driver.funcSetAttribute(self.kernel.ptr, _attribute_id(cp, name), value)

    # -- safekern's additions ------------------------------------------------------------
    def check_report(self):
        """Every access of the source: checked, proven safe, or unchecked with the reason;
        and the pointer arguments launched as skcp.unchecked()."""
        return self._program.check_report()

    @property
    def rewritten_source(self) -> str:
        return self._program.rewrite().source

    def __repr__(self):
        return f"<safekern checked RawKernel {self.name!r} from {self.filename!r}>"


def _attribute_property(name: str, settable: bool):
    def getter(self):
        return self._get_attr(name)

    def setter(self, value):
        self._set_attr(name, value)

    return property(getter, setter if settable else None,
                    doc=f"The kernel's {name} (as cupy.RawKernel.{name}).")


for _name in _ATTRIBUTES:
    setattr(RawKernel, _name, _attribute_property(
        _name, _name in ("max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout")))


class RawModule:
    """Checked drop-in for `cupy.RawModule(code=...)`: get_function, get_global,
    name_expressions for templates (every instantiation asked for is checked)."""

    def __init__(self, *, code: str | None = None, path: str | None = None, options=(),
                 backend: str = "nvrtc", translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False, name_expressions=None,
                 jitify: bool = False, filename: str | None = None):
        if (code is None) == (path is None):
            raise TypeError("Exactly one of `code` and `path` keyword arguments must be given.")
        if path is not None:
            raise UnsupportedError(
                f"RawModule(path={path!r}): a compiled cubin/PTX cannot be checked; pass the "
                "CUDA source as code=... (or use cupy.RawModule for unchecked binaries)")
        _reject_options(backend=backend, translate_cucomplex=translate_cucomplex,
                        enable_cooperative_groups=enable_cooperative_groups, jitify=jitify)
        self.code = code
        self.file_path = None
        self.options = tuple(options)
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify
        self.name_expressions = (tuple(name_expressions) if name_expressions is not None
                                 else None)
        self._program = Program(code, options, self.name_expressions or (),
                                filename or "rawmodule.cu")
        self.filename = self._program.filename

    @property
    def module(self):
        """The cupy.cuda.function.Module of the current device."""
        return self._program.loaded().module

    def compile(self, log_stream=None):
        self._program.loaded(log_stream)      # keeps the loaded module (RawKernel.compile)

    def get_function(self, name: str) -> RawKernel:
        loaded = self._program.loaded()
        self._program.resolve(loaded.rewrite, loaded.lowered, name)   # a clear error now
        return RawKernel(self.code, name, self.options, self.backend,
                         _program=self._program)

    def get_global(self, name: str):
        cp = _cupy()
        from cupy.cuda.memory import MemoryPointer, UnownedMemory

        mod = self.module
        ptr = mod.get_global_var(name)
        mem = UnownedMemory(ptr, 0, mod, cp.cuda.Device().id)
        return MemoryPointer(mem, 0)

    def check_report(self):
        return self._program.check_report()

    @property
    def rewritten_source(self) -> str:
        return self._program.rewrite().source

    def __repr__(self):
        return f"<safekern checked RawModule from {self.filename!r}>"


__all__ = ["RawKernel", "RawModule", "Unchecked", "unchecked", "CupyFailureSource",
           "failure_source", "pointer_bytes", "hidden_argument", "device_arch",
           "compile_options", "compile_rewrite", "load_module", "parse_include_dirs", "Binary",
           "Program"]
