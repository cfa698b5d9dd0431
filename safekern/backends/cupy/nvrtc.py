"""NVRTC: compile CUDA C++ to PTX and a cubin for one architecture, without CuPy or a GPU.

    out = compile_program(source, filename="gather.cu", arch="sm_90",
                          options=("-std=c++17",), name_expressions=("axpy<float>",))
    out.ptx, out.cubin, out.lowered_names["axpy<float>"]

libnvrtc is loaded with ctypes from the `nvidia-cuda-nvrtc` wheel (found through cuda-pathfinder
when it is installed), CUDA_PATH / CUDA_HOME, or the system loader path. Every call of
nvrtcCompileProgram is counted (`compile_calls()`): a warm start from the kernel cache must not
compile, and tests assert that it does not.

Errors: NVRTC reports positions through the `#line` directives of the rewritten source, so they
name the user's file and line. `NvrtcError` keeps the parsed diagnostics; `to_compilation_error`
turns one into a `CompilationError` that shows the user's own source line.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import logging
import os
import re
import sys
import threading
from dataclasses import dataclass, field

from ... import config
from ...errors import CompilationError
from ...frontend.c.line_map import LineMap

log = logging.getLogger("safekern.nvrtc")

_lock = threading.Lock()
_lib = None
_compile_calls = 0

# Options that pick the target: safekern compiles for the device's exact architecture itself.
_ARCH_OPTION = re.compile(r"^(-arch|--gpu-architecture)(=|$)")
# Options that make a relocatable object, which cannot be loaded without a device link step.
RELOCATABLE_OPTIONS = ("-dc", "--device-c", "-rdc=true", "--relocatable-device-code=true")


class NvrtcUnavailable(RuntimeError):
    """libnvrtc cannot be found or loaded."""


# -- loading -----------------------------------------------------------------------------------

def _candidates() -> list[str]:
    """Paths or sonames of libnvrtc to try, best first."""
    found: list[str] = []
    try:  # the way CuPy 14 and cuda-python find CUDA libraries
        from cuda import pathfinder  # type: ignore

        found.append(pathfinder.load_nvidia_dynamic_lib("nvrtc").abs_path)
    except Exception as err:  # not installed, or no NVRTC where it looks
        log.debug("cuda-pathfinder did not find nvrtc: %s", err)
    if sys.platform.startswith("win"):
        patterns = ["nvrtc64_*.dll"]
    else:
        patterns = ["libnvrtc.so.*[0-9]", "libnvrtc.so"]
    roots = []
    for entry in sys.path:
        for sub in ("nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cuda_nvrtc/lib",
                    "nvidia/cu13/bin", "nvidia/cuda_nvrtc/bin"):
            roots.append(os.path.join(entry, sub))
    for toolkit in config.cuda_toolkit_roots():
        roots += [os.path.join(toolkit, d) for d in ("lib64", "lib", "bin")]
    roots += ["/usr/local/cuda/lib64", "/usr/local/cuda/lib"]
    for root in roots:
        for pattern in patterns:
            # Newest first: libnvrtc.so.13 before libnvrtc.so.12.
            found += sorted(glob.glob(os.path.join(root, pattern)), reverse=True)
    for soname in ("libnvrtc.so.13", "libnvrtc.so.12", ctypes.util.find_library("nvrtc")):
        if soname:
            found.append(soname)
    seen, unique = set(), []
    for path in found:
        if path not in seen and "alt" not in os.path.basename(path):
            seen.add(path)
            unique.append(path)
    return unique


def library() -> ctypes.CDLL:
    """The loaded libnvrtc (loaded once per process)."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
                lib.nvrtcVersion  # noqa: B018 -- a library without it is not NVRTC
            except (OSError, AttributeError) as err:
                errors.append(f"{path}: {err}")
                continue
            _declare(lib)
            log.debug("using NVRTC from %s", path)
            _lib = lib
            _lib._safekern_path = path
            return _lib
        raise NvrtcUnavailable(
            "NVRTC is not available: install the 'nvidia-cuda-nvrtc' wheel "
            "(pip install safekern[nvrtc]) or set CUDA_PATH to a CUDA toolkit"
            + (" (tried: " + "; ".join(errors) + ")" if errors else ""))


def _declare(lib) -> None:
    c = ctypes
    prog_p = c.POINTER(c.c_void_p)
    sigs = {
        "nvrtcVersion": [c.POINTER(c.c_int), c.POINTER(c.c_int)],
        "nvrtcCreateProgram": [prog_p, c.c_char_p, c.c_char_p, c.c_int,
                               c.POINTER(c.c_char_p), c.POINTER(c.c_char_p)],
        "nvrtcDestroyProgram": [prog_p],
        "nvrtcAddNameExpression": [c.c_void_p, c.c_char_p],
        "nvrtcCompileProgram": [c.c_void_p, c.c_int, c.POINTER(c.c_char_p)],
        "nvrtcGetProgramLogSize": [c.c_void_p, c.POINTER(c.c_size_t)],
        "nvrtcGetProgramLog": [c.c_void_p, c.c_char_p],
        "nvrtcGetPTXSize": [c.c_void_p, c.POINTER(c.c_size_t)],
        "nvrtcGetPTX": [c.c_void_p, c.c_char_p],
        "nvrtcGetCUBINSize": [c.c_void_p, c.POINTER(c.c_size_t)],
        "nvrtcGetCUBIN": [c.c_void_p, c.c_char_p],
        "nvrtcGetLoweredName": [c.c_void_p, c.c_char_p, c.POINTER(c.c_char_p)],
        "nvrtcGetNumSupportedArchs": [c.POINTER(c.c_int)],
        "nvrtcGetSupportedArchs": [c.POINTER(c.c_int)],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.argtypes = args
            fn.restype = c.c_int
    lib.nvrtcGetErrorString.argtypes = [c.c_int]
    lib.nvrtcGetErrorString.restype = c.c_char_p


def _check(lib, result: int, what: str) -> None:
    if result != 0:
        msg = lib.nvrtcGetErrorString(result)
        raise RuntimeError(f"NVRTC {what} failed: {msg.decode() if msg else result}")


def library_path() -> str:
    return library()._safekern_path


def version() -> tuple[int, int]:
    lib = library()
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def supported_archs() -> list[int]:
    """Compute capabilities (e.g. 90) this NVRTC can compile for."""
    lib = library()
    n = ctypes.c_int()
    _check(lib, lib.nvrtcGetNumSupportedArchs(ctypes.byref(n)), "nvrtcGetNumSupportedArchs")
    archs = (ctypes.c_int * n.value)()
    _check(lib, lib.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs")
    return list(archs)


def compile_calls() -> int:
    """How often this process ran nvrtcCompileProgram."""
    return _compile_calls


def include_dirs() -> list[str]:
    """Directories with the CUDA toolkit headers (cuda_fp16.h, cooperative_groups.h, CCCL), so
    that `#include <...>` works as it does under CuPy. Empty when none are installed."""
    dirs: list[str] = []
    try:
        from cuda import pathfinder  # type: ignore

        for lib in ("cccl", "cudart"):
            try:
                found = pathfinder.find_nvidia_header_directory(lib)
            except Exception:
                found = None
            if found:
                dirs.append(found)
    except ImportError:
        pass
    for entry in sys.path:
        for sub in ("nvidia/cu13/include/cccl", "nvidia/cu13/include",
                    "nvidia/cuda_cccl/include", "nvidia/cuda_runtime/include"):
            dirs.append(os.path.join(entry, sub))
    for toolkit in config.cuda_toolkit_roots():
        dirs.append(os.path.join(toolkit, "include"))
    dirs.append("/usr/local/cuda/include")
    out, seen = [], set()
    for d in dirs:
        d = os.path.abspath(d)
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


# -- compiling ---------------------------------------------------------------------------------

def normalize_arch(arch) -> str:
    """'sm_90' for 'sm_90', 'compute_90', '90', 90, (9, 0) or '9.0'."""
    if isinstance(arch, tuple):
        return f"sm_{arch[0]}{arch[1]}"
    text = str(arch).strip().lower()
    m = re.fullmatch(r"(?:sm_|compute_)?(\d)\.?(\d+)([af]?)", text)
    if not m:
        raise ValueError(f"not a CUDA architecture: {arch!r} (expected e.g. 'sm_90' or 90)")
    return f"sm_{m.group(1)}{m.group(2)}{m.group(3)}"


def strip_arch_options(options) -> tuple[str, ...]:
    """`options` without -arch / --gpu-architecture (and its separate value)."""
    out: list[str] = []
    skip = False
    for opt in options:
        if skip:
            skip = False
            continue
        if _ARCH_OPTION.match(opt):
            skip = opt in ("-arch", "--gpu-architecture")
            continue
        out.append(opt)
    return tuple(out)


@dataclass(frozen=True)
class Diagnostic:
    """One message of an NVRTC log."""

    filename: str | None
    lineno: int | None
    severity: str        # "error", "warning", "catastrophic error", "remark"
    message: str
    col: int | None      # 0-based, from NVRTC's caret line (columns of the rewritten text)
    text: str            # the whole block as NVRTC printed it


@dataclass
class NvrtcOutput:
    ptx: bytes
    cubin: bytes | None
    lowered_names: dict[str, str] = field(default_factory=dict)
    log: str = ""
    arch: str = ""
    options: tuple[str, ...] = ()


class NvrtcError(CompilationError):
    """NVRTC rejected the program. `diagnostics` lists every message; `log` is the raw log."""

    def __init__(self, problem: str, *, log: str = "", diagnostics=(), **kw):
        self.log = log
        self.diagnostics = list(diagnostics)
        super().__init__(problem, **kw)

    def __reduce__(self):
        return (_rebuild_nvrtc, (self.problem, self.log, {
            "filename": self.filename, "lineno": self.lineno, "source_line": self.source_line,
            "col": self.col, "end_col": self.end_col, "kernel": self.kernel}))


def _rebuild_nvrtc(problem, log_text, state):
    return NvrtcError(problem, log=log_text, diagnostics=parse_log(log_text), **state)


_HEAD = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): (?P<sev>catastrophic error|error|warning|"
                   r"remark)(?: #[\w-]+)?: (?P<msg>.*)$")


def parse_log(text: str) -> list[Diagnostic]:
    """The messages of an NVRTC log: `file(line): error: msg`, continuation lines, the source
    line and a caret line."""
    diags: list[Diagnostic] = []
    block: list[str] = []
    head = None

    def flush():
        if head is None:
            return
        # After the head: continuation lines of the message, then the echoed source line
        # (indented by two spaces) and a caret line under it.
        body = [ln for ln in block[1:] if ln.strip()]
        caret = next((i for i in range(len(body) - 1, -1, -1)
                      if set(body[i].strip()) == {"^"}), None)
        col = None
        if caret is not None and caret >= 1:
            col = max(0, len(body[caret]) - len(body[caret].lstrip()) - 2)
            extra = body[:caret - 1]
        else:
            extra = body
        msg = " ".join([head.group("msg").strip()] + [ln.strip() for ln in extra])
        diags.append(Diagnostic(head.group("file"), int(head.group("line")), head.group("sev"),
                                msg, col, "\n".join(block).rstrip()))

    for line in text.splitlines():
        m = _HEAD.match(line)
        if m:
            flush()
            head, block = m, [line]
        elif head is not None:
            if line.strip() and not line.startswith(" ") and not line.startswith("\t"):
                flush()
                head, block = None, []
            else:
                block.append(line)
    flush()
    return diags


def compile_program(source: str, *, filename: str = "kernel.cu", arch="sm_90", options=(),
                    name_expressions=(), headers=None, cubin: bool = True) -> NvrtcOutput:
    """Compile `source` for `arch` (PTX, and a cubin unless `cubin=False`). Raises NvrtcError
    with NVRTC's log when the program does not compile."""
    global _compile_calls
    lib = library()
    arch = normalize_arch(arch)
    target = arch if cubin else arch.replace("sm_", "compute_")
    opts = strip_arch_options(tuple(options)) + (f"-arch={target}",)
    headers = dict(headers or {})
    prog = ctypes.c_void_p()
    hdr_src = (ctypes.c_char_p * len(headers))(*[v.encode() for v in headers.values()])
    hdr_names = (ctypes.c_char_p * len(headers))(*[k.encode() for k in headers])
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode("utf-8"),
                                       filename.encode("utf-8"), len(headers),
                                       hdr_src if headers else None,
                                       hdr_names if headers else None), "nvrtcCreateProgram")
    try:
        for expr in name_expressions:
            _check(lib, lib.nvrtcAddNameExpression(prog, expr.encode()),
                   f"nvrtcAddNameExpression({expr!r})")
        c_opts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        with _lock:
            _compile_calls += 1
        result = lib.nvrtcCompileProgram(prog, len(opts), c_opts)
        log_text = _get_log(lib, prog)
        if result != 0:
            diags = parse_log(log_text)
            errors = [d for d in diags if "error" in d.severity]
            first = errors[0] if errors else None
            what = lib.nvrtcGetErrorString(result).decode()
            problem = (f"NVRTC: {first.severity}: {first.message}" if first
                       else f"NVRTC failed ({what})")
            raise NvrtcError(problem, log=log_text, diagnostics=diags,
                             filename=first.filename if first else filename,
                             lineno=first.lineno if first else None)
        ptx = _get_blob(lib, prog, "PTX")
        cubin_bytes = _get_blob(lib, prog, "CUBIN") if cubin else None
        lowered = {}
        for expr in name_expressions:
            name = ctypes.c_char_p()
            _check(lib, lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(name)),
                   f"nvrtcGetLoweredName({expr!r})")
            lowered[expr] = name.value.decode()
        return NvrtcOutput(ptx=ptx.rstrip(b"\0"), cubin=cubin_bytes, lowered_names=lowered,
                           log=log_text, arch=arch, options=opts)
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _get_log(lib, prog) -> str:
    size = ctypes.c_size_t()
    _check(lib, lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)), "nvrtcGetProgramLogSize")
    buf = ctypes.create_string_buffer(size.value)
    _check(lib, lib.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
    return buf.value.decode("utf-8", "replace")


def _get_blob(lib, prog, kind: str) -> bytes:
    size = ctypes.c_size_t()
    _check(lib, getattr(lib, f"nvrtcGet{kind}Size")(prog, ctypes.byref(size)),
           f"nvrtcGet{kind}Size")
    buf = ctypes.create_string_buffer(size.value)
    _check(lib, getattr(lib, f"nvrtcGet{kind}")(prog, buf), f"nvrtcGet{kind}")
    return buf.raw[:size.value]


# -- errors back to the user's lines -----------------------------------------------------------

def to_compilation_error(err: NvrtcError, sources: dict[str, str], *, kernel=None,
                         rewritten: bool = True) -> CompilationError:
    """A CompilationError at the first error that lies in one of `sources` (filename -> the
    user's text), showing the user's line. The full NVRTC log is attached as a note.

    `rewritten`: the log is about safekern's rewrite of the source; an error NVRTC reports at a
    place safekern generated (not in `sources`) is then named as safekern's fault."""
    errors = [d for d in err.diagnostics if "error" in d.severity]
    # (a source's own `#line` directives name other files and lines: line_map.py)
    maps = {name: LineMap.of(text, name) for name, text in sources.items()}
    owner = {}
    for d in errors:
        owner[id(d)] = next((name for name, lm in maps.items() if lm.knows(d.filename)), None)
    chosen = next((d for d in errors if owner[id(d)] is not None), None)
    if chosen is None:
        target = errors[0] if errors else None
        problem = err.problem
        if rewritten and target is not None:
            problem += (" (in code that safekern generated: please report this with the "
                        "kernel source)")
        exc = CompilationError(problem, filename=target.filename if target else None,
                               lineno=target.lineno if target else None, kernel=kernel)
    else:
        name = owner[id(chosen)]
        lines = sources[name].splitlines()
        physical = maps[name].physical(chosen.filename, chosen.lineno)
        src = lines[physical - 1] if physical and 0 < physical <= len(lines) else None
        col = _user_col(chosen, src)
        more = len(errors) - 1
        problem = f"NVRTC {chosen.severity}: {chosen.message}"
        if more:
            problem += f" (and {more} more error{'s' if more > 1 else ''})"
        exc = CompilationError(problem, filename=chosen.filename, lineno=chosen.lineno,
                               source_line=src, col=col, end_col=None, kernel=kernel)
    exc.add_note("NVRTC log:\n" + err.log.rstrip())
    exc.__cause__ = None
    return exc


def _user_col(diag: Diagnostic, user_line: str | None) -> int | None:
    """The caret column on the user's line, when NVRTC echoed that same line (the rewrite may
    have changed it; then only the line is named)."""
    if diag.col is None or user_line is None:
        return None
    lines = [ln for ln in diag.text.splitlines()[1:] if ln.strip()]
    caret = next((i for i in range(len(lines) - 1, -1, -1) if set(lines[i].strip()) == {"^"}),
                 None)
    if caret is None or caret < 1:
        return None
    echoed = lines[caret - 1][2:]
    return diag.col if echoed.rstrip() == user_line.rstrip() else None


__all__ = ["compile_program", "NvrtcOutput", "NvrtcError", "NvrtcUnavailable", "Diagnostic",
           "parse_log", "to_compilation_error", "version", "supported_archs", "compile_calls",
           "include_dirs", "normalize_arch", "strip_arch_options", "library_path",
           "RELOCATABLE_OPTIONS"]
