"""The checked source compiled by CuPy's own compiler, as `cupy.RawModule` compiles the user's.

    lowered, module = build(rw, options=..., backend="nvcc", name_expressions=..., ...)

safekern rewrites the user's source; CuPy then compiles the rewrite exactly as it would have
compiled the original (`cupy._core.core.compile_with_cache`): its option assembly, its NVRTC or
nvcc backend, Jitify, relocatable code linked with cudadevrt (`-dc`), its kernel cache
(CUPY_CACHE_DIR, CUPY_CACHE_IN_MEMORY, a backend set with _set_kernel_cache_backend) and its
log_stream. A drop-in needs all of them: a user who moved CuPy's cache, or compiles with nvcc,
gets the same with safekern.cupy.

CuPy's CompileException becomes a CompilationError at the user's line (the rewrite's `#line`
directives name it), which is also a CompileException (errors.cupy_flavoured).
Without CuPy's compiler (no CuPy, or the test suite's stand-in) `available()` is False and the
backend compiles with NVRTC itself (program.compile_rewrite).
"""
from __future__ import annotations

from . import nvrtc
from .errors import cupy_flavoured


def _core():
    """(cupy._core.core, cupy.cuda.compiler) of the `cupy` module imported now; (None, None)
    without CuPy or for a stand-in (tests/cupy's), even when the real CuPy's submodules were
    imported earlier in the process (they are reached through the module, not sys.modules)."""
    try:
        import cupy
    except Exception:
        return None, None
    core = getattr(getattr(cupy, "_core", None), "core", None)
    if core is None or not hasattr(core, "compile_with_cache"):
        return None, None
    try:
        from cupy.cuda import compiler
    except Exception:
        return None, None
    return core, compiler


def available() -> bool:
    return _core()[0] is not None


_memoized = None


def _compile(source, options, backend, name_expressions, log_stream, jitify, cooperative):
    core, _ = _core()
    return core.compile_with_cache(
        source, options, prepend_cupy_headers=False, backend=backend,
        enable_cooperative_groups=cooperative, name_expressions=name_expressions,
        log_stream=log_stream, jitify=jitify)


def _memo():
    """_compile memoized per device as CuPy memoizes its raw modules (cupy._util.memoize,
    which `cupy._util.clear_memo()` clears): the same checked source and arguments give the
    same module, in this process, until CuPy's memo is cleared."""
    global _memoized
    if _memoized is None:
        from cupy import _util

        _memoized = _util.memoize(for_each_device=True)(_compile)
    return _memoized


def build(rw, *, options, backend: str, name_expressions, log_stream=None, jitify=False,
          enable_cooperative_groups: bool = False):
    """(lowered names, cupy.cuda.function.Module) of the rewrite `rw` compiled by CuPy."""
    _, compiler = _core()
    exprs = tuple(name_expressions) if backend == "nvrtc" and name_expressions else None
    try:
        module = _memo()(rw.source, tuple(options), backend, exprs, log_stream, bool(jitify),
                         bool(enable_cooperative_groups))
    except compiler.CompileException as err:
        raise located(err, rw, options, backend) from None
    lowered = dict(getattr(module, "mapping", None) or {})
    return lowered, module


def located(err, rw, options, backend: str):
    """CuPy's CompileException `err` about the rewrite `rw` as a CompilationError at the
    user's line (also a CompileException), CuPy's whole message as a note."""
    text = err.get_message() if hasattr(err, "get_message") else str(err)
    diags = nvrtc.parse_log(text)
    errors = [d for d in diags if "error" in d.severity]
    first = errors[0] if errors else None
    tool = backend.upper()
    problem = (f"{tool}: {first.severity}: {first.message}" if first
               else f"{tool} failed: " + _first_line(text))
    nv = nvrtc.NvrtcError(problem, log=text, diagnostics=diags,
                          filename=first.filename if first else rw.filename,
                          lineno=first.lineno if first else None)
    exc = nvrtc.to_compilation_error(nv, {rw.filename: rw.original}, rewritten=rw.checked)
    if tool != "NVRTC":
        exc.problem = exc.problem.replace("NVRTC", tool, 1)
    return cupy_flavoured(exc, source=rw.source, options=options, backend=backend)


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no message"


__all__ = ["available", "build", "located"]
