"""A CUDA C source of safekern.cupy: rewritten per architecture, compiled (by CuPy's compiler,
cupy_compile; without CuPy by NVRTC through the kernel cache, program.compile_rewrite), loaded
per device; shared by a RawModule and the kernels it hands out (api.py).
"""
from __future__ import annotations

import re
import threading
import warnings

from ... import config
from ...errors import CompilationError, UncheckedWarning, UnsupportedError
from ...failures import TABLE
from ...memo import BoundedMemo
from ...report import ReportEntry, Status
from ...frontend.c import cuda as frontend
from ...frontend.c.line_map import LineMap
from . import cupy_compile, graphs as cupy_graphs, sync as cupy_sync, nvrtc
from .errors import cupy_flavoured, missing_function
from ..capture import host_work_allowed
from ..overlap import OverlapCheck
from .program import (DEFAULT_ARCH, _cupy, compile_options,
                      compile_rewrite, device_arch, device_fields, failure_source, load_module,
                      parse_include_dirs)

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


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_GLOBAL = re.compile(r"\b__global__\b")
# Process-wide, so that constructing the same RawKernel again neither parses nor loads again
# (each Program keeps its own forms in `_rewrites` / `_loaded` under the same keys).
# (source, options, arch, checks, ..., assume, filename) -> Rewrite
_REWRITES = BoundedMemo(256, lru=True)
# (device, checks, ..., assume, source, options, ...) -> _Loaded
_MODULES = BoundedMemo(256, lru=True)


def _device_launch(err):
    """libclang's refusal of a kernel launched from device code (dynamic parallelism, which
    clang does not support) as what it means for the user; None for other parse errors."""
    if "reference to __global__ function" not in err.problem:
        return None
    return UnsupportedError(
        "a kernel launched from device code (dynamic parallelism) cannot be checked yet: "
        "the child kernel's hidden sizes and failure buffer would have to be passed at the "
        "launch; launch it from the host, or use cupy.RawKernel for this source (unchecked)",
        filename=err.filename, lineno=err.lineno, source_line=err.source_line, col=err.col,
        end_col=err.end_col)


class Program:
    """A CUDA C source and its options, shared by a RawModule and the kernels it hands out."""

    def __init__(self, code: str, options=(), name_expressions=(), filename: str = "kernel.cu",
                 *, backend: str = "nvrtc", jitify=False, cooperative: bool = False):
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, not {type(code).__name__}")
        self.code = code
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        self.filename = filename
        # How CuPy compiles the checked source (cupy_compile), as it would the user's.
        self.backend = backend
        self.jitify = bool(jitify)
        self.cooperative = cooperative
        self._rewrites: dict[tuple, frontend.Rewrite] = {}
        self._loaded: dict[tuple, _Loaded] = {}
        self._lock = threading.RLock()
        self.launch_notes: dict[tuple, object] = {}   # unchecked arguments seen at launches
        self._overlaps: dict[tuple, object] = {}      # kernel -> OverlapCheck or None
        self.module_arguments = None     # a RawModule's, to pickle the kernels it hands out

    # -- rewriting -----------------------------------------------------------------------
    def default_arch(self) -> str:
        try:
            import cupy as cp

            if cp.cuda.runtime.getDeviceCount() > 0:
                return device_arch()[0]
        except Exception:
            pass
        return DEFAULT_ARCH

    def rewrite(self, arch: str | None = None, checks: bool | None = None,
                assume=frozenset()):
        """The rewrite for `arch` (checks off: the user's source as it is); `assume`: a launch
        variant's, without the checks of those failure codes."""
        arch = nvrtc.normalize_arch(arch or self.default_arch())
        checks = config.get().checks if checks is None else checks
        asserts = config.get().kernel_asserts
        eliminate = config.get().eliminate
        # No launch variants for relocatable code (`-dc`, dynamic parallelism): a variant is
        # built as a module of its own, without CuPy's link step (program.compile_options).
        launch = config.get().launch_predicates and \
            not any(o in nvrtc.RELOCATABLE_OPTIONS for o in self.options)
        assume = frozenset(assume) if checks else frozenset()
        with self._lock:
            key = (arch, checks, asserts, eliminate, launch, assume)
            memo = (self.code, self.options, *key, self.filename)
            rw = self._rewrites.get(key) or _REWRITES.recent(memo)
            if rw is None:
                try:
                    rw = frontend.rewrite(self.code, filename=self.filename,
                                          options=self.options, arch=arch,
                                          include_dirs=parse_include_dirs(self.options),
                                          checks=checks, kernel_asserts=asserts,
                                          eliminate=eliminate, launch_predicates=launch,
                                          assume=assume)
                except frontend.ParseError as err:
                    self._explain_parse_error(err, arch)
                    raise _as_raised(self._flavoured(_device_launch(err) or err))
                except CompilationError as err:
                    raise _as_raised(self._flavoured(err))
                if checks and not assume and not rw.kernels:
                    self._no_kernel_seen()
                if checks and not assume:
                    self._warn_unchecked(rw)
                _REWRITES.put(memo, rw)
            self._rewrites[key] = rw
            return rw

    def variant_function(self, name: str, codes: frozenset):
        """The function of kernel `name` in the launch variant of the module without the
        checks of failure codes `codes`: built and loaded as the module is (loaded())."""
        with host_work_allowed():      # (a launch inside a stream capture: RawKernel._bound)
            loaded = self.loaded(assume=codes)
        return loaded.function(self.resolve(loaded.rewrite, loaded.lowered, name)[0])

    def plain_function(self, name: str):
        """The function of kernel `name` in the module compiled from the user's own source
        (checks off), for plain launches (c_launch.PlainLaunch)."""
        loaded = self.loaded(checks=False)
        return loaded.function(self.resolve(loaded.rewrite, loaded.lowered, name)[0])

    def _explain_parse_error(self, err, arch):
        """When libclang cannot parse the source, NVRTC's verdict on the user's own source
        decides what to show: its error if it fails too, else safekern's limitation."""
        try:
            nvrtc.compile_program(self.code, filename=self.filename, arch=arch,
                                  options=compile_options(self.options), cubin=False)
        except nvrtc.NvrtcError as nv:
            raise self._flavoured(nvrtc.to_compilation_error(
                nv, {self.filename: self.code}, rewritten=False)) from None
        except Exception:
            return

    def _no_kernel_seen(self):
        """A source that defines a `__global__` function of which the parse saw none (errors
        in an included header -- CCCL's under the parser's stand-ins -- can hide the rest of
        the file) cannot be checked: refused here, not compiled unchecked."""
        code = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), self.code)
        hit = _GLOBAL.search(code)
        if hit is None:
            return
        lineno = code.count("\n", 0, hit.start()) + 1
        filename, presumed = LineMap.of(self.code, self.filename).presumed(lineno)
        raise self._flavoured(UnsupportedError(
            "safekern's parse of this source found no kernel, though it defines a __global__ "
            "function: errors in an included header hid it (CCCL headers such as "
            "<cub/...> do not parse under safekern's stand-ins; a source that uses their "
            "names cannot be checked yet)",
            filename=filename, lineno=presumed,
            source_line=self.code.splitlines()[lineno - 1]))

    def _flavoured(self, err):
        """A compilation error as CuPy's CompileException too (errors.cupy_flavoured)."""
        return cupy_flavoured(err, source=self.code, options=self.options,
                              backend=self.backend)

    def _warn_unchecked(self, rw):
        unchecked = rw.unchecked
        if unchecked:
            first = unchecked[0]
            warnings.warn_explicit(
                f"safekern: {len(unchecked)} access(es) in {self.filename} are not checked "
                f"(first: {first.reason}); see check_report()", UncheckedWarning,
                first.extra.get("filename") or self.filename, first.extra.get("lineno") or 0)

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
    def loaded(self, log_stream=None, *, fresh: bool = False, checks: bool | None = None,
               assume=frozenset()) -> _Loaded:
        """The module on the current device: the one build path of every form of it -- the
        checked module, a launch variant (`assume`: the failure codes it leaves out), the
        user's own (`checks=False`) -- rewrite -> register the failure sites -> compile
        (CuPy's compiler, or NVRTC through the kernel cache) -> load, memoized per form."""
        cp = _cupy()
        device_id = cp.cuda.runtime.getDevice()
        checks = config.get().checks if checks is None else checks
        assume = frozenset(assume) if checks else frozenset()
        if checks and not assume:
            cupy_sync.install()
            cupy_graphs.install()
        key = (device_id, checks, config.get().kernel_asserts,
               config.get().launch_predicates, config.get().eliminate, assume)
        memo = (*key, self.code, self.options, self.name_expressions, self.filename,
                self.backend, self.jitify, self.cooperative)
        # CuPy's compiler memoizes the module itself, as CuPy's RawModule does (cleared by
        # cupy._util.clear_memo()); safekern's process-wide memo serves the NVRTC path only.
        by_cupy = cupy_compile.available()
        with self._lock:
            if not fresh:
                hit = self._loaded.get(key) or (None if by_cupy else _MODULES.recent(memo))
                if hit is not None:
                    self._loaded[key] = hit
                    return hit
            arch, cubin = device_arch(device_id)
            rw = self.rewrite(arch, checks, assume)
            if rw.state and assume:
                # (the rewrite makes no launch predicates for such a source: a second guard)
                first = rw.state[0]
                raise UnsupportedError(
                    f"no launch variant for {self.filename}: it has module state ({first.why} "
                    f"'{first.name}' at line {first.lineno}), which a variant, a module of its "
                    "own, would not share")
            # What the module's failure codes mean, for sync() to name them: here, where a
            # module is built or loaded from the cache alike (the rewrite registers nothing).
            TABLE.register_all(rw.failure_sites)
            exprs = self.expressions(rw)
            if by_cupy:                     # CuPy compiles the checked source, as it would
                lowered, module = cupy_compile.build(   # the user's (its cache, nvcc, -dc)
                    rw, options=self.options, backend=self.backend, name_expressions=exprs,
                    log_stream=log_stream, jitify=self.jitify,
                    enable_cooperative_groups=self.cooperative)
            else:
                if self.backend != "nvrtc" or self.jitify:
                    raise UnsupportedError(f"backend={self.backend!r}, jitify={self.jitify}: "
                                           "needs CuPy's compiler (CuPy is not installed)")
                try:
                    binary, module = compile_rewrite(
                        rw, options=compile_options(self.options), arch=arch, cubin=cubin,
                        name_expressions=exprs, device_fields=device_fields(device_id),
                        log_stream=log_stream, load=load_module)
                except CompilationError as err:
                    raise _as_raised(self._flavoured(err))
                lowered = binary.lowered
            source = failure_source(device_id) if checks else None
            loaded = _Loaded(module, lowered, rw, source, device_id)
            self._loaded[key] = loaded
            if not by_cupy:
                _MODULES.put(memo, loaded)
            return loaded

    def resolve(self, rw, lowered: dict, name: str, module=None):
        """(symbol in the module, KernelInfo) for a name as CuPy's get_function takes it: a
        name expression, an extern "C" name, or the (original) mangled name. A name the
        source has no kernel for raises what CuPy raises (the driver's CUDADriverError,
        CUDA_ERROR_NOT_FOUND) when `module` is given, else ValueError."""
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
            message = self.no_kernel(rw, name)
            if module is not None:
                missing_function(module, name, message)
            raise ValueError(message)
        shapes = {tuple(p.is_pointer for p in k.params) for k in infos}
        if len(shapes) > 1:
            raise ValueError(f"{name!r} names overloaded kernels with different pointer "
                             "parameters; use a name expression with the exact signature")
        return symbol, infos[0]

    def no_kernel(self, rw, name: str) -> str:
        """What a name the source has no kernel for is told (resolve, RawKernel.check_report)."""
        known = ", ".join(sorted({k.name for k in rw.kernels})) or "none"
        templ = [k.name for k in rw.kernels if k.template]
        hint = (f"; templates need name_expressions=['{templ[0]}<...>']" if templ else "")
        return f"no kernel {name!r} in {self.filename} (kernels: {known}){hint}"

    def note_unchecked(self, info, param: str, position: int) -> None:
        key = (info.name, param)
        if key not in self.launch_notes:
            self.launch_notes[key] = ReportEntry(
                info.name, info.lineno, 0, f"argument {position} ('{param}') of a launch",
                param, Status.UNCHECKED, "marked skcp.unchecked() at launch: accesses through "
                f"'{param}' are not bounded")

    def note_unchecked_field(self, info, field, why: str) -> None:
        """A struct argument's pointer field a launch could not size (struct_args.py)."""
        key = (info.name, field.name)
        if key not in self.launch_notes:
            self.launch_notes[key] = ReportEntry(
                info.name, info.lineno, 0, f"field '{field.name}' of a launch", field.name,
                Status.UNCHECKED, f"not sized at launch: {why}; accesses through "
                f"'{field.name}' were not bounded")

    def overlap_check(self, info):
        """The launch-time overlap check of a kernel (None when it writes no pointer
        parameter), shared by every RawKernel of this source: one warning per kernel and
        pair, however many get_function() calls hand the kernel out."""
        key = (info.qualified, info.mangled, tuple(p.name for p in info.params))
        with self._lock:
            if key not in self._overlaps:
                check = OverlapCheck(kernel=info.name, filename=self.filename,
                                     lineno=info.lineno,
                                     params=[(p.index, p.name) for p in info.params
                                             if p.is_pointer],
                                     written=info.written, unknown=info.writes_unknown)
                self._overlaps[key] = check if check.needed else None
            return self._overlaps[key]

    def check_report(self):
        rw = self.rewrite()
        report = rw.report()
        report.extend(self.launch_notes.values())
        return report


def _as_raised(err):
    """`err` to raise from an except block: its own cause kept (an InternalError's is the bug
    in safekern), the exception being handled not shown as its context."""
    err.__suppress_context__ = True
    return err


__all__ = ["Program", "_MODULES", "_REWRITES"]

