"""The one error of a C source that libclang cannot make sense of (CUDA C and OpenCL C alike).

    raise ParseError.of(ps, diagnostics)

It is a `safekern.CompilationError` for both dialects (and, from safekern.cupy, CuPy's
CompileException too: backends/cupy/errors.py). The backends first ask the real compiler
(NVRTC, the OpenCL driver) about the user's own source: when that fails too, the compiler's
error is the one to show; when it does not, this one says what safekern cannot analyse.
"""
from __future__ import annotations

from ...errors import CompilationError


class ParseError(CompilationError):
    """libclang could not parse the source. `diagnostics`: its errors (parse.Diagnostic);
    `message`: the first one's text as libclang wrote it."""

    def __init__(self, problem, *, diagnostics=(), message: str = "", **kw):
        self.diagnostics = list(diagnostics)
        self.message = message or problem
        super().__init__(problem, **kw)

    @classmethod
    def of(cls, ps, diagnostics) -> "ParseError":
        """The error for `diagnostics` (libclang's errors, the user's file's first) of the
        parse `ps`: located at the first one's line."""
        first = next((d for d in diagnostics if d.in_main), diagnostics[0])
        # (Diagnostic lines are physical; the error names the place as a compiler would,
        # the source's own `#line` followed)
        filename, lineno = ps.presumed(first.lineno) if first.lineno else (ps.filename, None)
        return cls(f"safekern cannot analyse this source (libclang: {first.message})",
                   diagnostics=diagnostics, message=first.message, filename=filename,
                   lineno=lineno,
                   source_line=ps.source_line(first.lineno) if first.lineno else None,
                   col=first.col)


__all__ = ["ParseError"]
