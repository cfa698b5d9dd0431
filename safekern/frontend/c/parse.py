"""libclang for the C front ends (CUDA C, OpenCL C): parse the user's source, read positions.

The bottom of the C front ends: everything above reads the tree through this module. The layer,
bottom up:

    libclang    the bindings: loaded once, safe to finalise, tokens read directly
    tree        a unit's tree read once: children, extents, walks (re-exported here)
    line_map    the source's own `#line` directives: the file:line the compiler names
    parse       (this module) the translation unit, byte offsets <-> lines, tokens, macros
    edits       text edits that keep every line, `#line`, apply_edits
    buildlog    a driver's build log at the user's lines
    model       the facts passes hand on: Access, Root, FunctionFacts, Dialect
    provenance  what a pointer points into (both dialects)
    checks      which accesses of an OpenCL C function are checked (opencl_edits: the edits)
    safety      asserts and integer division; writes: which pointer parameters are stored through
    exits       where a failing OpenCL work-item goes (barrier-safe jumps)
    opencl*     the OpenCL C dialect and its rewrite; cuda*: the CUDA C dialect and its rewrite

API (stable; later additions only extend it):

- `parse(source, *, filename, args, headers=(), include_dirs=()) -> ParsedSource`. `source`
  is the user's text; `filename` names it in messages ("<opencl source>" by default in OpenCL);
  `args` are libclang arguments (language, standard, -D/-I); `headers` are (name, text) pairs
  made visible to libclang as in-memory files (libclang's wheel ships no headers).
- `ParsedSource`: `.source` (str), `.data` (UTF-8 bytes; every offset is a byte offset into
  it), `.filename`, `.tu`; `offsets(cursor) -> (start, end)`, `text(cursor)`,
  `slice(start, end)`, `line_col(offset) -> (lineno 1-based, col 0-based in characters)`,
  `source_line(lineno)` (physical lines), `presumed(lineno) -> (file, line)` and
  `place(offset) -> (file, line, col, physical line)`: the places the compiler names, the
  source's own `#line` directives followed (line_map.py), `in_main_file(cursor)`, `macro_at(*positions)` (the macro whose
  expansion strictly contains a position), `macro_containing(start, end)`,
  `tokens_between(start, end)`, `next_token(offset)`, `prev_token(offset)`,
  `errors()` / `diagnostics()` -> list of `Diagnostic`, `error(problem, start, end)` -> a
  CompilationError with the user's line and a caret; `located(kernel, offset, current)` -> the
  context every pass over a function runs in (an unexpected exception becomes a located
  safekern.InternalError).
- Cursor helpers: `strip(cursor)` (skips implicit casts and parentheses), `children(cursor)`
  (read from libclang once per cursor of a translation unit: every pass and every walk
  shares it -- never call `Cursor.get_children()` directly), `walk(cursor)` (pre-order,
  yields (cursor, parents-tuple)), `unary_op(ps, cursor)`,
  `binary_op(ps, cursor)` (operator spelling from tokens), `evaluate_int(cursor)`
  (constant value or None), `functions(ps)`, `function_body(fn)`, `called_name(call)`,
  `call_args(call)`.
"""
from __future__ import annotations

import bisect
import ctypes
import os
import re
import threading
from dataclasses import dataclass

from ...errors import CompilationError
from ..located import internal_errors
from .line_map import LineMap
from .libclang import cindex as _cindex, tokens as _tokens
from .tree import children, kids, span, walk, walk_main

_MAIN_DIR = "/__safekern__"


_INDEX = None
_PARSE_LOCK = threading.RLock()


def _index():
    global _INDEX
    if _INDEX is None:
        _INDEX = _cindex().Index.create()
    return _INDEX


@dataclass(frozen=True)
class Diagnostic:
    severity: str        # "error", "warning", "note"
    message: str
    lineno: int | None   # user's line (1-based) when the diagnostic is in the user's source
    col: int | None      # 0-based column
    in_main: bool


class ParsedSource:
    """The user's source, its libclang translation unit, and offset/line utilities."""

    def __init__(self, source: str, filename: str, tu, path: str):
        self.source = source
        self.data = source.encode("utf-8")
        self.filename = filename
        self.tu = tu
        self.path = path
        self._line_starts = [0] + [m.end() for m in re.finditer(rb"\n", self.data)]
        self._lines = self.source.split("\n")
        # The user's own text, whose lines messages show: `source` itself, or what macros.py
        # expanded into `source` (line for line)
        self.user_text = source
        self._tokens = None
        self._token_starts = None
        self._macros = None
        self._file_names: dict = {}     # libclang file -> its name (_file_name)
        self._main_top = None

    # -- positions --------------------------------------------------------------------
    def in_main_file(self, cursor) -> bool:
        """Whether `cursor`'s extent starts in the user's source (its expansion location's
        file), read once per Cursor object (see span())."""
        known = cursor.__dict__.get("_safekern_in_main")
        if known is None:
            known = cursor._safekern_in_main = self._file_name(cursor.extent.start) == self.path
        return known

    def _file_name(self, loc) -> str | None:
        """The name of the file of `loc`'s expansion location (SourceLocation.file.name, None
        for none) in one libclang call: the bindings' `.file` reads the line, column and
        offset too and each `.name` converts a libclang string -- here once per file."""
        ci = _cindex()
        f = ci.c_object_p()
        ci.conf.lib.clang_getInstantiationLocation(loc, ctypes.byref(f), None, None, None)
        if not f:
            return None
        ptr = ctypes.cast(f, ctypes.c_void_p).value
        name = self._file_names.get(ptr)
        if name is None:
            name = self._file_names[ptr] = ci.File(f).name
        return name

    def main_top(self) -> tuple:
        """The unit's top-level cursors that start in the user's source, in order (each
        pass that looks at the source's own declarations, macros or functions reads this,
        not the headers' thousands of declarations and macros again)."""
        if self._main_top is None:
            self._main_top = tuple(c for c in kids(self.tu.cursor) if self.in_main_file(c))
        return self._main_top

    def offsets(self, cursor) -> tuple[int, int]:
        return span(cursor)

    def file_of(self, cursor) -> str | None:
        """The name of the file of `cursor`'s location (None: none), read once per Cursor
        object (see span())."""
        known = cursor.__dict__.get("_safekern_file", False)
        if known is False:
            known = cursor._safekern_file = self._file_name(cursor.location)
        return known

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def text(self, cursor) -> str:
        return self.slice(*self.offsets(cursor))

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._line_starts, offset) - 1
        col = len(self.data[self._line_starts[i]:offset].decode("utf-8", "replace"))
        return i + 1, col

    @property
    def line_map(self) -> LineMap:
        """The source's own `#line` directives (line_map.py): read from the user's text."""
        return LineMap.of(self.user_text, self.filename)

    def presumed(self, lineno: int) -> tuple[str, int]:
        """(file, line) the compiler names for physical line `lineno`: the source's own
        `#line` directives followed. Every place safekern reports goes through this (or
        place()); `source_line` takes the physical line."""
        return self.line_map.presumed(lineno)

    def place(self, offset: int) -> tuple[str, int, int, int]:
        """(file, presumed line, col, physical line) of a byte offset of the user's source."""
        lineno, col = self.line_col(offset)
        name, presumed = self.presumed(lineno)
        return name, presumed, col, lineno

    def source_line(self, lineno: int) -> str:
        """The text of physical line `lineno` as the user wrote it."""
        lines = self._lines if self.user_text is self.source else self.user_text.split("\n")
        if 1 <= lineno <= len(lines):
            return lines[lineno - 1]
        return ""

    # -- tokens and macros --------------------------------------------------------------
    def _load_tokens(self):
        if self._tokens is None:
            ci = _cindex()
            start = self.tu.get_location(self.path, 0)
            end = self.tu.get_location(self.path, len(self.data))
            extent = ci.SourceRange.from_locations(start, end)
            toks = _tokens(ci, self.tu, extent)
            toks.sort()
            self._tokens = toks
            self._token_starts = [t[0] for t in toks]
        return self._tokens

    def tokens_between(self, start: int, end: int) -> list[tuple[int, int, str]]:
        toks = self._load_tokens()
        i = bisect.bisect_left(self._token_starts, start)
        out = []
        while i < len(toks) and toks[i][1] <= end:
            out.append(toks[i])
            i += 1
        return out

    def next_token(self, offset: int):
        """The first token that starts at or after `offset`, as (start, end, spelling)."""
        toks = self._load_tokens()
        i = bisect.bisect_left(self._token_starts, offset)
        return toks[i] if i < len(toks) else None

    def prev_token(self, offset: int):
        """The last token that ends at or before `offset`."""
        toks = self._load_tokens()
        i = bisect.bisect_left(self._token_starts, offset) - 1
        while i >= 0 and toks[i][1] > offset:
            i -= 1
        return toks[i] if i >= 0 else None

    def macro_ranges(self) -> list[tuple[int, int, str]]:
        if self._macros is None:
            ci = _cindex()
            self._macros = sorted(
                (c.extent.start.offset, c.extent.end.offset, c.spelling)
                for c in self.main_top() if c.kind == ci.CursorKind.MACRO_INSTANTIATION)
        return self._macros

    def macro_at(self, *positions: int) -> str | None:
        """The macro whose expansion text strictly contains one of `positions`, else None."""
        for s, e, name in self.macro_ranges():
            for p in positions:
                if s < p < e:
                    return name
        return None

    def macro_containing(self, start: int, end: int) -> str | None:
        """The macro whose expansion text contains the whole range [start, end], else None."""
        for s, e, name in self.macro_ranges():
            if s <= start and end <= e:
                return name
        return None

    # -- diagnostics ----------------------------------------------------------------------
    def diagnostics(self) -> list[Diagnostic]:
        out = []
        for d in self.tu.diagnostics:
            sev = {4: "error", 3: "error", 2: "warning", 1: "note"}.get(d.severity, "note")
            loc = d.location
            in_main = loc.file is not None and loc.file.name == self.path
            lineno = col = None
            if in_main:
                lineno, col = self.line_col(loc.offset)
            out.append(Diagnostic(sev, d.spelling, lineno, col, in_main))
        return out

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics() if d.severity == "error"]

    def located(self, kernel: str | None, offset: int | None = None, current=None):
        """A context for one pass over one function (frontend/located.py): an unexpected
        exception in it becomes a safekern.InternalError naming `kernel`, this file and the
        line of `offset` (the function's name) with its text -- or, finer, the line of the
        cursor `current()` returns (the node the pass was checking), when it returns one."""
        filename, lineno, physical = self.filename, None, None
        if offset is not None:
            filename, lineno, _, physical = self.place(offset)

        def where():
            cursor = current() if current is not None else None
            if cursor is None:
                return None
            _, line, col, at = self.place(cursor.extent.start.offset)
            return line, col, self.source_line(at)

        return internal_errors(kernel=kernel, filename=filename, lineno=lineno,
                               source_line=self.source_line(physical) if physical else None,
                               where=where)

    def error(self, problem: str, offset: int | None = None, end: int | None = None,
              *, kernel=None, cls=CompilationError) -> CompilationError:
        """A CompilationError (or `cls`) at a byte offset of the user's source."""
        if offset is None:
            return cls(problem, filename=self.filename, kernel=kernel)
        filename, lineno, col, physical = self.place(offset)
        end_col = None
        if end is not None:
            end_line, end_col = self.line_col(end)
            if end_line != physical:
                end_col = None
        return cls(problem, filename=filename, lineno=lineno,
                   source_line=self.source_line(physical), col=col, end_col=end_col,
                   kernel=kernel)


def parse(source: str, *, filename: str, args, headers=(), include_dirs=()) -> ParsedSource:
    """Parse `source` with libclang. Never raises for errors in the source: see errors()."""
    ci = _cindex()
    if not isinstance(source, str):
        raise TypeError(f"kernel source must be a str, not {type(source).__name__}")
    path = f"{_MAIN_DIR}/main.src"
    unsaved = [(path, source)]
    full_args = list(args)
    for name, text in headers:
        unsaved.append((f"{_MAIN_DIR}/include/{name}", text))
    if headers:
        full_args += ["-I", f"{_MAIN_DIR}/include"]
    for d in include_dirs:
        full_args += ["-I", d]
    full_args += ["-I", os.getcwd()]
    opts = (ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
            | ci.TranslationUnit.PARSE_INCOMPLETE)
    with _PARSE_LOCK:    # one libclang index for the process; parses one at a time
        tu = _index().parse(path, args=full_args, unsaved_files=unsaved, options=opts)
    return ParsedSource(source, filename, tu, path)


# -- cursor helpers ------------------------------------------------------------------------

def kinds():
    return _cindex().CursorKind


def strip(cursor):
    """Skip implicit casts (UNEXPOSED_EXPR with one child) and parentheses."""
    K = kinds()
    while True:
        if cursor.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            ch = children(cursor)
            if len(ch) == 1:
                cursor = ch[0]
                continue
        return cursor


def functions(ps: ParsedSource) -> list:
    """Function definitions written in the user's source, in source order."""
    K = kinds()
    return [c for c in ps.main_top() if c.kind == K.FUNCTION_DECL and c.is_definition()]


def function_body(fn):
    K = kinds()
    for ch in kids(fn):
        if ch.kind == K.COMPOUND_STMT:
            return ch
    return None


def called_name(call) -> str | None:
    """The name of the function a CALL_EXPR calls directly, else None."""
    K = kinds()
    ch = children(call)
    if not ch:
        return None
    callee = strip(ch[0])
    if callee.kind == K.DECL_REF_EXPR:
        return callee.spelling
    return None


def call_args(call) -> list:
    return children(call)[1:]


def unary_op(ps: ParsedSource, cursor) -> str:
    """The operator of a UNARY_OPERATOR: '*', '&', '-', '!', '~', '++', '--', 'post++'..."""
    s, e = ps.offsets(cursor)
    toks = ps.tokens_between(s, e)
    if not toks:
        return ""
    first, last = toks[0][2], toks[-1][2]
    if first in ("*", "&", "-", "+", "!", "~", "++", "--"):
        return first
    if last in ("++", "--"):
        return "post" + last
    return ""


def binary_op(ps: ParsedSource, cursor) -> str:
    """The operator of a BINARY_OPERATOR / COMPOUND_ASSIGNMENT_OPERATOR ('+', '+=', ...)."""
    ch = children(cursor)
    if len(ch) != 2:
        return ""
    lhs_end = span(ch[0])[1]
    tok = ps.next_token(lhs_end)
    return tok[2] if tok is not None else ""


class _Eval:
    _fns = None

    @classmethod
    def fns(cls):
        if cls._fns is None:
            ci = _cindex()
            lib = ci.conf.lib
            try:
                ev = lib.clang_Cursor_Evaluate
                ev.argtypes = [ci.Cursor]
                ev.restype = ctypes.c_void_p
                kind = lib.clang_EvalResult_getKind
                kind.argtypes = [ctypes.c_void_p]
                kind.restype = ctypes.c_int
                as_ll = lib.clang_EvalResult_getAsLongLong
                as_ll.argtypes = [ctypes.c_void_p]
                as_ll.restype = ctypes.c_longlong
                dispose = lib.clang_EvalResult_dispose
                dispose.argtypes = [ctypes.c_void_p]
                dispose.restype = None
                cls._fns = (ev, kind, as_ll, dispose)
            except AttributeError:   # a libclang without the evaluation API
                cls._fns = ()
        return cls._fns


def evaluate_int(cursor) -> int | None:
    """The value of an integer constant expression (literals, macros, sizeof), else None."""
    K = kinds()
    c = strip(cursor)
    if c.kind == K.INTEGER_LITERAL or c.kind in (K.BINARY_OPERATOR, K.UNARY_OPERATOR,
                                                 K.CXX_UNARY_EXPR, K.PAREN_EXPR,
                                                 K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR):
        if not _is_constant_tree(c):
            return None
        fns = _Eval.fns()
        if not fns:
            return None
        ev, kind, as_ll, dispose = fns
        res = ev(c)
        if not res:
            return None
        try:
            if kind(res) != 1:   # CXEval_Int
                return None
            return int(as_ll(res))
        finally:
            dispose(res)
    return None


def _is_constant_tree(cursor) -> bool:
    K = kinds()
    for c, _ in walk(cursor):
        if c.kind in (K.DECL_REF_EXPR, K.CALL_EXPR, K.MEMBER_REF_EXPR,
                      K.ARRAY_SUBSCRIPT_EXPR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            if c.kind == K.DECL_REF_EXPR and c.referenced is not None and \
                    c.referenced.kind == K.ENUM_CONSTANT_DECL:
                continue
            return False
        if c.kind == K.CXX_UNARY_EXPR:   # sizeof/alignof: constant whatever is inside
            return True
    return True


__all__ = ["parse", "ParsedSource", "Diagnostic", "strip", "children", "kids", "span", "walk",
           "walk_main", "functions", "function_body", "called_name", "call_args", "unary_op",
           "binary_op", "evaluate_int", "kinds"]
