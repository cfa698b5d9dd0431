"""The constructor options of cupy.RawKernel / cupy.RawModule, taken as CuPy takes them.

    code = options.prepare(code, backend=..., translate_cucomplex=..., jitify=...,
                           name_expressions=...)

- `backend`: 'nvrtc' or 'nvcc' (CuPy compiles the checked source with either: cupy_compile).
- `translate_cucomplex=True`: `#include <cuComplex.h>` becomes CuPy's complex header and its
  bridge header (include/safekern_cucomplex.h, one line for one), as CuPy does
  (core.compile_with_cache prepends its headers; _translate_cucomplex_to_thrust), before the
  source is rewritten, so the rewrite checks what is compiled.
- `jitify`: passed on to CuPy; any value other than None warns as CuPy 14 does (the argument
  is deprecated there; CuPy's own tests expect the warning).
- `name_expressions` with a backend other than NVRTC: CuPy's ValueError.
- `enable_cooperative_groups=True`: accepted, launched cooperatively as CuPy does. A kernel
  that synchronises the grid is refused by the rewrite (a thread that fails a check exits and
  the grid would wait for it); one that does not is checked as any other.
"""
from __future__ import annotations

import os
import re
import warnings

from ..._stack import user_stacklevel

BACKENDS = ("nvrtc", "nvcc")

# CuPy's pattern (cupy/_core/core.pyx, _cucomplex_include_pattern).
_CUCOMPLEX_INCLUDE = re.compile(r"\s*".join(["", "#", "include", "<", r"cuComplex\.h", ">"]))
_BRIDGE = "#include <safekern_cucomplex.h>  // translate_cucomplex\n"
INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def bridge_cucomplex(code: str) -> str:
    """`code` with `#include <cuComplex.h>` replaced by CuPy's complex and bridge headers
    (one line for one, so the user's line numbers stay); compile with `-I` INCLUDE_DIR."""
    return "".join(_BRIDGE if _CUCOMPLEX_INCLUDE.match(line) else line
                   for line in code.splitlines(keepends=True))


def jitify_warning(jitify) -> None:
    """CuPy 14's DeprecationWarning for an explicit `jitify=` (cupy.cuda.compiler.
    _jitify_deprecation_warning), at the user's line."""
    if jitify is None:
        return
    if jitify:
        text = ("jitify=True is deprecated and its support is staged for removal in CuPy "
                "v15.0.\nPlease try compiling without jitify using the CCCL headers as "
                "needed.")
    else:
        text = ("The jitify argument is deprecated and staged for removal in CuPy v15.0. "
                "Avoid passing `jitify=False` to silence this warning.")
    warnings.warn(text, DeprecationWarning, stacklevel=user_stacklevel())


def prepare(code: str, options, *, backend: str, translate_cucomplex: bool, jitify,
            name_expressions=None) -> tuple[str, tuple]:
    """Check the options as CuPy does; (the source to rewrite, its compiler options)."""
    options = tuple(options)
    if backend not in BACKENDS:
        raise ValueError(f"Invalid backend {backend!r} (safekern.cupy compiles with "
                         f"{' or '.join(BACKENDS)})")
    if name_expressions is not None and backend != "nvrtc":
        raise ValueError("only nvrtc supports retrieving the mangled names for the given "
                         "name expressions")
    if jitify and backend != "nvrtc":
        raise ValueError("Jitify only supports NVRTC")
    jitify_warning(jitify)
    if translate_cucomplex and isinstance(code, str):
        code = bridge_cucomplex(code)
        options += (f"-I{INCLUDE_DIR}",)
    return code, options


__all__ = ["BACKENDS", "prepare", "bridge_cucomplex", "jitify_warning"]
