"""CuPy backend: checked `RawKernel` / `RawModule` for CUDA C, drop-ins for CuPy's.

    k = RawKernel(code, "gather", options=("-std=c++17",))
    k((blocks,), (threads,), (out, src, idx, np.int32(n)))     # as cupy.RawKernel
    safekern.sync()

The source is rewritten (frontend.cuda) for the current device's architecture and the checked
source compiled by CuPy's own compiler as CuPy would compile the user's (cupy_compile: its
NVRTC or nvcc backend, Jitify, `-dc`, its kernel cache and log_stream); without CuPy's compiler
by NVRTC through safekern's kernel cache (program.compile_rewrite). A launch appends the hidden
arguments: the byte size of what each pointer parameter receives, then the device's failure
buffer (backends/cupy/program.py). The constructors take CuPy's options (options.py) and raise
CuPy's exceptions (errors.py); both classes pickle as CuPy's do.

CuPy is imported when first needed; building a RawKernel and `check_report()` work without it.
Loading a checked module wraps CuPy's synchronisation calls as sync points (sync.py).
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import config
from ..._stack import user_stacklevel
from ...errors import UncheckedWarning, for_user, user_boundary
from . import graphs as cupy_graphs, options as cupy_options
from ..c_launch import CLaunchVariants, cuda_geometry, plain_launch
from ..capture import host_work_allowed
from .launch_args import kernel_arguments
from .struct_args import field_extents
from .source import _MODULES, _REWRITES, Program  # noqa: F401 -- tests clear the memos
from .program import (DEFAULT_ARCH, Binary, CupyFailureSource, Unchecked, _cupy,
                      compile_options, compile_rewrite, device_arch, device_fields,
                      note_plain_launch,
                      failure_source, hidden_argument, load_module, memory_span,
                      parse_include_dirs, pointer_bytes, unchecked)

# -- the user-facing classes ------------------------------------------------------------------

# CUfunction_attribute, in CUDA's order (its values are 0..9).
_ATTRIBUTES = ("max_threads_per_block", "shared_size_bytes", "const_size_bytes",
               "local_size_bytes", "num_regs", "ptx_version", "binary_version", "cache_mode_ca",
               "max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout")


def _attribute_id(cp, name: str) -> int:
    return getattr(cp.cuda.driver, "CU_FUNC_ATTRIBUTE_" + name.upper(),
                   _ATTRIBUTES.index(name))


class RawKernel:
    """Checked drop-in for `cupy.RawKernel`: same arguments, same call, same errors.

    `filename=` names the source in messages (default: '<name>.cu'); line numbers are the
    source string's own. Pointer parameters must receive CuPy arrays (their size bounds the
    accesses) or `skcp.unchecked(ptr)`. The checked source is compiled by CuPy's compiler
    with `backend`, `jitify` and `options` as given (backends/cupy/options.py).
    """

    def __init__(self, code: str, name: str, options=(), backend: str = "nvrtc", *,
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False,
                 jitify=None, filename: str | None = None, _program=None):
        if _program is None:
            source, compile_opts = cupy_options.prepare(
                code, options, backend=backend, jitify=jitify,
                translate_cucomplex=translate_cucomplex)
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        self.code = code
        self.name = self.__name__ = name
        self.options = tuple(options)
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify
        self.file_path = None
        self.name_expressions = None if _program is None else \
            (_program.name_expressions or None)
        self._program = _program or Program(
            source, compile_opts, (), filename or f"{name}.cu", backend=backend, jitify=jitify,
            cooperative=enable_cooperative_groups)
        self.filename = self._program.filename
        self._launch_cache: dict = {}

    def __reduce__(self):
        # As cupy.RawKernel pickles: the arguments, compiled again where it is loaded.
        module = self._program.module_arguments
        return (_rebuild_kernel, (self.code, self.name, self.options, self.backend, {
            "translate_cucomplex": self.translate_cucomplex, "jitify": self.jitify,
            "enable_cooperative_groups": self.enable_cooperative_groups,
            "filename": self.filename}, module))

    # -- CuPy's interface ----------------------------------------------------------------
    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None,
                 enable_cooperative_groups: bool = False):
        launch = {"shared_mem": shared_mem, "stream": stream}
        if enable_cooperative_groups or self.enable_cooperative_groups:
            launch["enable_cooperative_groups"] = True
        loaded, func, info, overlap, variants, plain, device = self._bound()
        args = kernel_arguments(_cupy(), args, info)       # as CuPy takes them
        if loaded.source is None or not info.checked:   # SAFEKERN_CHECKS=0, or a kernel
            func(grid, block, tuple(a.value if isinstance(a, Unchecked) else a     # left
                                    for a in args), **launch)                      # unchanged
            return
        values, sizes, spans = [], [], []
        for i, (arg, param) in enumerate(zip(args, info.params)):
            if param.is_pointer:
                value, nbytes = hidden_argument(arg, param.name, info.name, i)
                if nbytes < 0:
                    self._program.note_unchecked(info, param.name, i)
                values.append(value)
                sizes.append(np.int64(nbytes))
                if overlap is not None:
                    spans.append(memory_span(value, nbytes))
            else:
                values.append(arg)
        fields = ()
        if info.fields:                          # pointers inside struct arguments
            fields, unresolved = field_extents(args, info.fields)
            for field, why in unresolved:
                self._program.note_unchecked_field(info, field, why)
        if overlap is not None:
            overlap.check(spans)                 # before anything runs
        m = 0 if variants is None else variants.mask_of(     # (fields' sizes after the
            args, sizes + list(fields), cuda_geometry, grid, block)     # pointers': launch.py)
        if plain is not None:                    # nothing can fail: the user's own kernel
            own = plain.kernel(m, loaded.source)
            if own is not None:
                own(grid, block, tuple(values), **launch)
                note_plain_launch(device)
                return
        if m:                                    # the checks this launch proves left out
            func = variants.variant(m) or func
        func(grid, block, tuple(values) + tuple(sizes) + tuple(fields) +
             (loaded.source.buffer,), **launch)
        cupy_graphs.after_launch(loaded.source, stream)     # (pending, or captured)

    def _bound(self):
        """(loaded module, function, KernelInfo, overlap check, launch variants, plain launch,
        device number) for the current device and check setting; looked up once, then served
        from a small per-kernel table (launches are hot)."""
        cp = _cupy()
        settings = config.get()
        key = (cp.cuda.runtime.getDevice(), settings.checks, settings.kernel_asserts,
               settings.launch_predicates, settings.plain_launches, settings.eliminate)
        hit = self._launch_cache.get(key)
        if hit is None:
            # A first launch may come inside a stream capture: the host work (and whatever
            # the garbage collector frees meanwhile) in the relaxed capture mode.
            with host_work_allowed():
                loaded = self._program.loaded()
            symbol, info = self._program.resolve(loaded.rewrite, loaded.lowered, self.name,
                                                 loaded.module)
            variants = plain = None
            program, name = self._program, self.name
            if loaded.source is not None and info.checked and info.launch and \
                    settings.launch_predicates:
                variants = CLaunchVariants(
                    info.launch, lambda codes: program.variant_function(name, codes),
                    python_int=True)
            if loaded.source is not None and info.checked:
                plain = plain_launch(info, loaded.rewrite.state, variants,
                                     lambda: program.plain_function(name), settings)
            hit = self._launch_cache[key] = (loaded, loaded.function(symbol), info,
                                             self._program.overlap_check(info), variants,
                                             plain, key[0])
        return hit

    @property
    def kernel(self):
        """The cupy.cuda.function.Function of the current device."""
        return self._bound()[1]

    def compile(self, log_stream=None):
        """Compile now (CuPy compiles at the first launch), writing the compiler's log to
        `log_stream`."""
        self._launch_cache.clear()
        # As CuPy's: the module already loaded on this device is kept (a reload would lose
        # its __device__/__constant__ variables, which get_global() handed out).
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
    @user_boundary          # an UnsupportedError at the user's line, not the front end's
    def check_report(self):
        """Every access of the source: checked, proven safe, or unchecked with the reason;
        and the pointer arguments launched as skcp.unchecked(). A name the source has no
        kernel for (a typo) is an error here too, as at the first launch."""
        rw = self._program.rewrite()
        name = self.name
        if rw.checked and "<" not in name and not any(
                name in (k.name, k.mangled, k.qualified) for k in rw.kernels):
            raise for_user(ValueError(self._program.no_kernel(rw, name)))
        return self._program.check_report()

    @property
    @user_boundary
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
    name_expressions for templates (every instantiation asked for is checked).

    `RawModule(path=...)` loads a compiled cubin/PTX, which cannot be checked: it is CuPy's
    own RawModule, with an UncheckedWarning."""

    def __new__(cls, *, code: str | None = None, path: str | None = None, **kwargs):
        if path is not None and code is None:
            warnings.warn(UncheckedWarning(
                f"safekern.cupy.RawModule(path={path!r}): a compiled binary cannot be "
                "checked; it is loaded by cupy.RawModule and runs unchecked"),
                stacklevel=user_stacklevel())
            from cupy._core.raw import RawModule as CupyRawModule   # CuPy's, not patched

            kwargs.pop("filename", None)
            return CupyRawModule(path=path, **kwargs)
        return super().__new__(cls)

    def __init__(self, *, code: str | None = None, path: str | None = None, options=(),
                 backend: str = "nvrtc", translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False, name_expressions=None,
                 jitify=None, filename: str | None = None):
        if (code is None) == (path is None):
            raise TypeError("Exactly one of `code` and `path` keyword arguments must be given.")
        source, compile_opts = cupy_options.prepare(
            code, options, backend=backend, jitify=jitify,
            translate_cucomplex=translate_cucomplex, name_expressions=name_expressions)
        self.code = code
        self.file_path = None
        self.options = tuple(options)
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify
        self.name_expressions = (tuple(name_expressions) if name_expressions is not None
                                 else None)
        self._program = Program(source, compile_opts, self.name_expressions or (),
                                filename or "rawmodule.cu", backend=backend, jitify=jitify,
                                cooperative=enable_cooperative_groups)
        self._program.module_arguments = self._arguments()
        self.filename = self._program.filename

    def _arguments(self) -> dict:
        return {"code": self.code, "options": self.options, "backend": self.backend,
                "translate_cucomplex": self.translate_cucomplex,
                "enable_cooperative_groups": self.enable_cooperative_groups,
                "name_expressions": self.name_expressions, "jitify": self.jitify,
                "filename": self.filename if hasattr(self, "filename") else None}

    def __reduce__(self):
        return (_rebuild_module, (self._arguments(),))

    @property
    def module(self):
        """The cupy.cuda.function.Module of the current device."""
        return self._program.loaded().module

    def compile(self, log_stream=None):
        """Compile now, writing the compiler's log to `log_stream`."""
        self._program.loaded(log_stream)      # keeps the loaded module (RawKernel.compile)

    def get_function(self, name: str) -> RawKernel:
        loaded = self._program.loaded()
        self._program.resolve(loaded.rewrite, loaded.lowered, name,   # CuPy's error now
                              loaded.module)
        return RawKernel(self.code, name, self.options, self.backend,
                         translate_cucomplex=self.translate_cucomplex,
                         enable_cooperative_groups=self.enable_cooperative_groups,
                         jitify=self.jitify, _program=self._program)

    def get_global(self, name: str):
        cp = _cupy()
        from cupy.cuda.memory import MemoryPointer, UnownedMemory

        mod = self.module
        ptr = mod.get_global_var(name)
        mem = UnownedMemory(ptr, 0, mod, cp.cuda.Device().id)
        return MemoryPointer(mem, 0)

    @user_boundary          # an UnsupportedError at the user's line, not the front end's
    def check_report(self):
        return self._program.check_report()

    @property
    @user_boundary
    def rewritten_source(self) -> str:
        return self._program.rewrite().source

    def __repr__(self):
        return f"<safekern checked RawModule from {self.filename!r}>"


def _rebuild_kernel(code, name, options, backend, kwargs, module):
    """A RawKernel from its pickled arguments (one of a RawModule: through that module, so
    that name expressions resolve)."""
    with warnings.catch_warnings():     # the jitify warning was given when it was made
        warnings.simplefilter("ignore", DeprecationWarning)
        if module is not None:
            return _rebuild_module(module).get_function(name)
        return RawKernel(code, name, options, backend, **kwargs)


def _rebuild_module(arguments):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return RawModule(**arguments)


__all__ = ["RawKernel", "RawModule", "Unchecked", "unchecked", "CupyFailureSource",
           "failure_source", "pointer_bytes", "hidden_argument", "device_arch",
           "compile_options", "compile_rewrite", "load_module", "parse_include_dirs", "Binary",
           "Program"]
