"""Any unexpected exception in a front-end pass becomes a located `safekern.InternalError`.

A bug in a pass should not reach the user as a bare traceback through safekern's internals: it
should say which kernel and which line of it safekern was checking, with the source line and
a caret, and keep the original exception as its cause (Triton wraps every `visit` the same way
so any exception becomes a located `CompilationError`).

- `LocatedVisitor`: a mixin for `ast.NodeVisitor` / `NodeTransformer` passes; the innermost
  node with a line that was being visited is the location.
- `internal_errors(...)`: a context manager for passes that are not visitors (the C front
  ends' per-function analyses); the location is what the caller knows (a function's line), or
  what `where()` says when the exception happens.

Errors safekern raises on purpose (`SafekernError`: unsupported constructs, bad source) and
`KeyboardInterrupt`-style exits pass through unchanged.
"""
from __future__ import annotations

import contextlib
import linecache

from ..errors import InternalError, SafekernError


def char_column(line_text: str, indent: int, offset: int | None) -> int | None:
    """The 0-based character column, in the file's line `line_text`, of an ast column offset:
    ast counts UTF-8 bytes, of the line with `indent` columns removed (dedent). A name such as
    `Σ_T` is 4 bytes and 3 characters; carets and reports count characters."""
    if offset is None:
        return None
    rest = line_text[indent:]
    if rest.isascii() and offset >= 0:      # (most lines: a byte is a character)
        return indent + min(offset, len(rest))
    return indent + len(rest.encode("utf-8")[:offset].decode("utf-8", "ignore"))


def internal_error(exc: BaseException, *, kernel=None, filename=None, lineno=None,
                   col=None, end_col=None, source_line=None) -> InternalError:
    """The located error for `exc`, an unexpected exception of a pass."""
    if source_line is None and filename and lineno:
        source_line = linecache.getline(filename, lineno) or None
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    err = InternalError(f"internal error in safekern while checking this line: {what} "
                        "(please report it; SAFEKERN_CHECKS=0 runs the kernel unchecked)",
                        filename=filename, lineno=lineno, source_line=source_line, col=col,
                        end_col=end_col, kernel=kernel)
    return err


@contextlib.contextmanager
def internal_errors(*, kernel=None, filename=None, lineno=None, col=None, source_line=None,
                    where=None):
    """Re-raise an unexpected exception of the body as a located InternalError. `where()`, if
    given, is asked at that moment for a (lineno, col) better than the fixed one -- or a
    (lineno, col, source_line), for sources linecache cannot read (C kernels are strings)."""
    try:
        yield
    except SafekernError:
        raise
    except Exception as exc:          # noqa: BLE001 -- the point: no bare internal traceback
        line, column, text = lineno, col, source_line
        if where is not None:
            try:
                found = where()
            except Exception:         # noqa: BLE001 -- the location is best effort
                found = None
            if found and found[0]:
                line, column = found[0], found[1]
                text = found[2] if len(found) > 2 else (source_line if line == lineno else None)
        raise internal_error(exc, kernel=kernel, filename=filename, lineno=line, col=column,
                             source_line=text) from exc


class LocatedVisitor:
    """Mixin (first base) for ast visitors: set `located_kernel` and `located_filename`
    (and `located_line_offset` / `located_indent` when the tree's lines and columns are
    relative to the file's)."""

    located_kernel: str | None = None
    located_filename: str | None = None
    located_line_offset: int = 0
    located_indent: int = 0

    def visit(self, node):
        try:
            return super().visit(node)
        except SafekernError:
            raise
        except Exception as exc:      # noqa: BLE001 -- the innermost located node reports it
            lineno = getattr(node, "lineno", None)
            if lineno is None:
                raise                 # an outer node with a line will locate it
            line = lineno + self.located_line_offset
            text = linecache.getline(self.located_filename, line) \
                if self.located_filename else ""
            col = getattr(node, "col_offset", None)
            end = getattr(node, "end_col_offset", None)
            same_line = getattr(node, "end_lineno", lineno) == lineno
            raise internal_error(
                exc, kernel=self.located_kernel, filename=self.located_filename, lineno=line,
                col=char_column(text, self.located_indent, col),
                end_col=char_column(text, self.located_indent, end) if same_line else None
            ) from exc
