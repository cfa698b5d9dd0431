"""The shared libclang layer for C-family kernel languages (OpenCL C here, CUDA C for CuPy).

Language-neutral: everything that differs between OpenCL C and CUDA C lives in a `Dialect`
object (safekern/frontend/c/opencl.py has the OpenCL one). Three modules make the layer:
this one (parsing, positions, edits, #line, build logs, failure sites), `checks.py` (which
accesses are checked against what, and the edits that check them) and `exits.py` (where a
failing thread goes: exit checks, barrier-safe jumps). A C front end runs:

    ps = parse(source, filename=..., args=dialect.parse_args(options), headers=dialect.headers())
    ps.errors()                        # libclang's errors, at the user's lines
    for fn in functions(ps):           # FUNCTION_DECL definitions written in the user's source
        facts = c_checks.analyse_function(ps, fn, dialect, is_kernel=..., helpers=...)
        # facts.accesses: list[Access] (analysis only); find_accesses() is the short form
        edits += c_checks.access_edits(ps, facts, codes)   # codes: id(access) -> C literal
        edits += barriers_c.ControlPlan(ps, fn, dialect, ...).edits("return;")
    text = apply_edits(ps, edits, prelude=dialect_prelude)   # + '#line 1 "file"', lines kept
    log, err = map_build_log(driver_log, ps.filename, prelude_lines(text))

API (stable; later additions only extend it):

- `parse(source, *, filename, args, headers=(), include_dirs=()) -> ParsedSource`. `source`
  is the user's text; `filename` names it in messages ("<opencl source>" by default in OpenCL);
  `args` are libclang arguments (language, standard, -D/-I); `headers` are (name, text) pairs
  made visible to libclang as in-memory files (libclang's wheel ships no headers).
- `ParsedSource`: `.source` (str), `.data` (UTF-8 bytes; every offset is a byte offset into
  it), `.filename`, `.tu`; `offsets(cursor) -> (start, end)`, `text(cursor)`,
  `slice(start, end)`, `line_col(offset) -> (lineno 1-based, col 0-based in characters)`,
  `source_line(lineno)`, `in_main_file(cursor)`, `macro_at(*positions)` (the macro whose
  expansion strictly contains a position), `macro_containing(start, end)`,
  `tokens_between(start, end)`, `next_token(offset)`, `prev_token(offset)`,
  `errors()` / `diagnostics()` -> list of `Diagnostic`, `error(problem, start, end)` -> a
  CompilationError with the user's line and a caret.
- Cursor helpers: `strip(cursor)` (skips implicit casts and parentheses), `children(cursor)`,
  `walk(cursor)` (pre-order, yields (cursor, parents-tuple)), `unary_op(ps, cursor)`,
  `binary_op(ps, cursor)` (operator spelling from tokens), `evaluate_int(cursor)`
  (constant value or None), `functions(ps)`, `function_body(fn)`, `called_name(call)`,
  `call_args(call)`.
- `Access`: one memory access (see c_checks.analyse_function / `find_accesses`): its kind
  ("subscript", "deref", "builtin", "vector", "argument"), status ("checked", "safe",
  "unchecked"), reason, the byte ranges to wrap, the array/pointer it is checked against
  (`Base`), axis and constant extent; `Access.site(ps, backend)` registers and returns its
  `safekern.failures.FailureSite`.
- `Edit(start, end, text, key)`: replace data[start:end] with text (start == end inserts).
  Make them with `insert_before(pos, text, depth)`, `insert_after(pos, text, depth)` (these
  order insertions that meet at one offset: closing text of inner constructs first, then
  opening text of outer constructs first) and `replace(start, end, text)`. Edit text never
  contains a newline: line numbers stay.
- `apply_edits(ps, edits, *, prelude="") -> str`: prelude, then `#line 1 "<filename>"`, then
  the edited user text.
- `map_build_log(log, filename, prelude_lines) -> (log, BuildError | None)`: rewrites raw line
  numbers of the rewritten source (for drivers that ignore #line) to the user's lines and
  returns the first error's location.
- `Dialect`: the base class of language dialects (see its docstring for the hooks).
"""
from __future__ import annotations

import bisect
import ctypes
import os
import re
import threading
from dataclasses import dataclass, field

from ...errors import CompilationError
from ...failures import TABLE, FailureSite, site_code

_MAIN_DIR = "/__safekern__"


def _cindex():
    try:
        import clang.cindex as ci
    except ImportError as err:  # pragma: no cover - the clang extra is not installed
        raise CompilationError(
            "checking C kernels needs libclang: pip install 'safekern[clang]' (libclang>=16)"
        ) from err
    _guard_disposal(ci)
    return ci


def _guard_disposal(ci) -> None:
    """Make the bindings' finalizers safe in any order (once per process): tokens and
    diagnostics may be collected after their translation unit.

    A TokenGroup's finalizer disposes its tokens through its translation unit. When the two are
    garbage in one cycle, the collector may finalize the unit first, and disposing the tokens
    then reads freed memory: a segmentation fault during a later parse (seen on the H200 with
    Python 3.12). A unit now remembers that it is disposed, and tokens whose unit is gone are
    left alone (their memory is a small leak, not a crash)."""
    if getattr(ci.TokenGroup, "_safekern_guarded", False):
        return
    dispose_unit = ci.TranslationUnit.__del__
    dispose_tokens = ci.TokenGroup.__del__

    def unit_del(self):
        if not self.__dict__.get("_safekern_disposed", False):
            self.__dict__["_safekern_disposed"] = True
            dispose_unit(self)

    def tokens_del(self):
        unit = self.__dict__.get("_tu")
        if unit is not None and unit.__dict__.get("_safekern_disposed", False):
            return
        dispose_tokens(self)

    ci.TranslationUnit.__del__ = unit_del
    ci.TokenGroup.__del__ = tokens_del
    # A Diagnostic keeps no reference to its unit, so it can outlive it (in a cycle, a
    # traceback, a list freed later); clang_disposeDiagnostic then reads the diagnostic's
    # vtable in the freed unit. For the diagnostics a unit owns (all safekern asks for) the
    # call does nothing else: skip it.
    ci.Diagnostic.__del__ = lambda self: None
    dispose_index = ci.Index.__del__

    def index_del(self):
        try:
            dispose_index(self)
        except AttributeError:      # at interpreter exit the library handle is already gone
            pass

    ci.Index.__del__ = index_del
    ci.TokenGroup._safekern_guarded = True


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
        self._tokens = None
        self._token_starts = None
        self._macros = None

    # -- positions --------------------------------------------------------------------
    def in_main_file(self, cursor) -> bool:
        loc = cursor.extent.start
        return loc.file is not None and loc.file.name == self.path

    def offsets(self, cursor) -> tuple[int, int]:
        ext = cursor.extent
        return ext.start.offset, ext.end.offset

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def text(self, cursor) -> str:
        return self.slice(*self.offsets(cursor))

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._line_starts, offset) - 1
        col = len(self.data[self._line_starts[i]:offset].decode("utf-8", "replace"))
        return i + 1, col

    def source_line(self, lineno: int) -> str:
        if 1 <= lineno <= len(self._lines):
            return self._lines[lineno - 1]
        return ""

    # -- tokens and macros --------------------------------------------------------------
    def _load_tokens(self):
        if self._tokens is None:
            ci = _cindex()
            start = self.tu.get_location(self.path, 0)
            end = self.tu.get_location(self.path, len(self.data))
            extent = ci.SourceRange.from_locations(start, end)
            toks = []
            for tok in self.tu.get_tokens(extent=extent):
                if tok.kind.name == "COMMENT":
                    continue
                s, e = tok.extent.start.offset, tok.extent.end.offset
                toks.append((s, e, tok.spelling))
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
                for c in self.tu.cursor.get_children()
                if c.kind == ci.CursorKind.MACRO_INSTANTIATION and self.in_main_file(c))
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

    def error(self, problem: str, offset: int | None = None, end: int | None = None,
              *, kernel=None, cls=CompilationError) -> CompilationError:
        """A CompilationError (or `cls`) at a byte offset of the user's source."""
        if offset is None:
            return cls(problem, filename=self.filename, kernel=kernel)
        lineno, col = self.line_col(offset)
        end_col = None
        if end is not None:
            end_line, end_col = self.line_col(end)
            if end_line != lineno:
                end_col = None
        return cls(problem, filename=self.filename, lineno=lineno,
                   source_line=self.source_line(lineno), col=col, end_col=end_col,
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


def children(cursor) -> list:
    return list(cursor.get_children())


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


def walk(cursor, parents=()):
    """Pre-order walk yielding (cursor, parents) with parents outermost first."""
    yield cursor, parents
    inner = parents + (cursor,)
    for ch in cursor.get_children():
        yield from walk(ch, inner)


def functions(ps: ParsedSource) -> list:
    """Function definitions written in the user's source, in source order."""
    K = kinds()
    return [c for c in ps.tu.cursor.get_children()
            if c.kind == K.FUNCTION_DECL and c.is_definition() and ps.in_main_file(c)]


def function_body(fn):
    K = kinds()
    for ch in fn.get_children():
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
    lhs_end = ch[0].extent.end.offset
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


# -- edits ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Edit:
    """Replace data[start:end] with `text` (an insertion when end == start).

    `key` orders edits that meet at one offset: insert_after() texts (which close constructs
    ending there) come first, innermost first; then insert_before() texts, outermost first.
    """

    start: int
    end: int = -1
    text: str = ""
    key: tuple = (1, 0)

    def __post_init__(self):
        if self.end < 0:
            object.__setattr__(self, "end", self.start)
        if "\n" in self.text:
            raise ValueError("edit text must not contain a newline (line numbers are kept)")


def insert_before(pos: int, text: str, depth: int = 0) -> Edit:
    return Edit(pos, pos, text, (1, depth))


def insert_after(pos: int, text: str, depth: int = 0) -> Edit:
    return Edit(pos, pos, text, (0, -depth))


def replace(start: int, end: int, text: str) -> Edit:
    return Edit(start, end, text, (2, 0))


def line_directive(lineno: int, filename: str) -> str:
    name = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {lineno} "{name}"'


def apply_edits(ps: ParsedSource, edits, *, prelude: str = "") -> str:
    """The edited user source after `prelude` and a #line directive back to line 1."""
    data = ps.data
    ordered = sorted(edits, key=lambda e: (e.start, e.key, e.end))
    out = []
    pos = 0
    for e in ordered:
        if e.start < pos:
            raise ValueError(f"overlapping edits at byte {e.start} of {ps.filename}")
        out.append(data[pos:e.start])
        out.append(e.text.encode("utf-8"))
        pos = e.end
    out.append(data[pos:])
    body = b"".join(out).decode("utf-8")
    head = prelude if not prelude or prelude.endswith("\n") else prelude + "\n"
    return f"{head}{line_directive(1, ps.filename)}\n{body}"


def prelude_lines(text: str) -> int:
    """Lines before the user's line 1 in a text made by apply_edits (the #line included)."""
    marker = text.find("\n#line 1 ")
    if text.startswith("#line 1 "):
        return 1
    if marker < 0:
        return 0
    return text.count("\n", 0, marker + 1) + 1


# -- build logs ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BuildError:
    lineno: int | None
    col: int | None
    message: str


_LOC = re.compile(r'(?P<file>"[^"\n]*"|<[^>\n]*>|[^\s:"()]+):(?P<line>\d+):(?:(?P<col>\d+):)?')
_EDG = re.compile(r'"(?P<file>[^"\n]+)", line (?P<line>\d+)')
_ERROR_WORD = re.compile(r"\b(?:fatal )?error\b\s*:?\s*", re.IGNORECASE)


def map_build_log(log: str, filename: str, n_prelude: int):
    """Rewrite a driver's build log to the user's lines; also its first error in the source.

    Locations that name `filename` already follow our #line directive; other names of the
    main source (drivers that ignore #line: "<kernel>", "<source>", a temporary file) count
    lines of the rewritten text, so the prelude is subtracted. Headers (.h) keep their lines.
    """
    own = re.compile(re.escape(filename) +
                     r":(?P<line>\d+)(?::(?P<col>\d+))?(?: <Spelling=[^>]*>)?:")
    own_edg = re.compile('"' + re.escape(filename) + r'", line (?P<line>\d+)(?P<col>)')
    first = None
    out_lines = []
    for line in (log or "").splitlines():
        m = own.search(line) or own_edg.search(line)
        user_line = None
        if m:
            user_line = int(m.group("line"))
        elif _EDG.search(line):
            # '"<kernel>", line 62: error: ...' (EDG-style front ends)
            e = _EDG.search(line)
            raw = int(e.group("line"))
            if raw > n_prelude and not e.group("file").endswith((".h", ".hpp", ".cuh")):
                user_line = raw - n_prelude
                line = f'{line[:e.start()]}"{filename}", line {user_line}{line[e.end():]}'
                m = own_edg.search(line)
        else:
            m = _LOC.search(line)
            if m:
                name = m.group("file").strip('"')
                raw = int(m.group("line"))
                if not name.endswith((".h", ".hpp", ".cuh", ".clh")) and raw > n_prelude:
                    user_line = raw - n_prelude
                    col = m.group("col")
                    line = (f"{line[:m.start()]}{filename}:{user_line}:"
                            f"{col + ':' if col else ''}{line[m.end():]}")
                    m = own.search(line)
                else:
                    m = None
        if first is None and _ERROR_WORD.search(line):
            if m is not None:
                col = m.group("col")
                msg = _ERROR_WORD.sub("", line[m.end():].lstrip(": "), count=1).strip() or \
                    line.strip()
                first = BuildError(user_line, int(col) - 1 if col else None, msg)
            elif "error" in line.lower() and not line.strip().lower().startswith(
                    ("1 error", "device")):
                first = BuildError(None, None, _ERROR_WORD.sub("", line, count=1).strip())
        out_lines.append(line)
    return "\n".join(out_lines), first


# -- accesses ------------------------------------------------------------------------------

@dataclass
class Base:
    """What a pointer or array is checked against.

    kind "param": a pointer parameter of a kernel with a hidden size argument;
    "helper_param": a pointer parameter of a helper function (offset and size passed in);
    "array": an array of constant size (private, __local/__shared__, program scope, member).
    """

    kind: str
    name: str                 # the parameter/array as written
    size_expr: str            # C expression: the size in bytes of what may be accessed
    offset_expr: str = "0"    # C expression: byte offset of `name` within that memory
    elem_type: str = ""       # the element type spelling (pointee type)
    address_space: str = ""   # dialect's address space keyword ("__global", ...)
    extent: int | None = None # constant element count, for arrays
    ref: str = ""             # C expression of the base pointer (`name`, or a saved copy)

    def __post_init__(self):
        if not self.ref:
            self.ref = self.name


@dataclass
class Access:
    """One memory access of the user's source, and how it is handled."""

    function: str
    kind: str                 # "subscript", "deref", "builtin", "vector"
    status: str               # "checked", "safe", "unchecked"
    reason: str               # why safe/unchecked ("" for checked)
    start: int                # byte range of the whole access (for the report and caret)
    end: int
    index_start: int = -1     # byte range of the index (subscript) / offset operand
    index_end: int = -1
    array: str = ""
    axis: int | None = None
    extent: int | None = None # constant extent of the axis (arrays)
    base: Base | None = None
    pointer_start: int = -1   # byte range of the pointer expression (derived pointers)
    pointer_end: int = -1
    elems: int = 1            # elements touched (vloadN: N)
    negate: bool = False      # the offset operand is subtracted (p - k)
    builtin: str = ""
    depth: int = 0            # AST depth (orders insertions that meet at one offset)
    extra: dict = field(default_factory=dict)

    def location(self, ps: ParsedSource):
        lineno, col = ps.line_col(self.index_start if self.index_start >= 0 else self.start)
        s = self.index_start if self.index_start >= 0 else self.start
        e = self.index_end if self.index_end >= 0 else self.end
        end_line, end_col = ps.line_col(e)
        if end_line != lineno or e <= s:
            end_col = None
        return lineno, col, end_col

    def site(self, ps: ParsedSource, backend: str, kind: str = "bounds") -> FailureSite:
        """Register this access's failure site in the process-wide table."""
        lineno, col, end_col = self.location(ps)
        code = site_code(backend, ps.filename, lineno, col, self.function, self.array,
                         self.axis, self.kind, kind)
        return TABLE.register(FailureSite(
            code=code, kind=kind, kernel=self.function, filename=ps.filename, lineno=lineno,
            source_line=ps.source_line(lineno), col=col, end_col=end_col, array=self.array,
            axis=self.axis))


class Dialect:
    """What differs between C kernel languages. Subclasses fill these in.

    Attributes:
      name                 "opencl", "cuda"
      barrier_functions    names of group barriers ("barrier", "work_group_barrier";
                           "__syncthreads", ...): statements calling them are barrier points
      pure_builtins        a container: `name in pure_builtins` for calls without side effects
                           (get_global_id, min, ...), so expressions holding them may be
                           evaluated twice by a check
    Hooks:
      parse_args(options) -> libclang arguments; headers() -> [(name, text)]
      is_kernel(fn_cursor) -> bool
      address_space(type_spelling) -> "__global", "__local", ... or "" (used in the
                           `(const AS char *)` casts of byte-offset checks)
      pointer_builtin(name) -> (pointer arg, elements touched, offset arg or None) for
                           built-ins that access memory through a pointer (atomics, vloadN),
                           "skip" for ones that do not, None: reported as unchecked
      barrier_call_edits(ps, call) -> edits making a barrier also fence the group's flag
      group_barrier_text() -> a statement that syncs the group (after collectives)
    The language's rewriter adds the prelude (which defines __sk_ix, __sk_ixb,
    __SK_UNLIKELY), hidden parameters and the kernel prologue (__sk_fp, __sk_lf, __sk_nb).
    """

    name = "c"
    barrier_functions: frozenset = frozenset()
    pure_builtins = frozenset()

    def parse_args(self, options) -> list:
        raise NotImplementedError

    def headers(self) -> list:
        return []

    def is_kernel(self, fn) -> bool:
        raise NotImplementedError

    def address_space(self, type_spelling: str) -> str:
        return ""

    def pointer_builtin(self, name: str):
        return None

    def barrier_call_edits(self, ps, call) -> list:
        return []

    def group_barrier_text(self) -> str:
        raise NotImplementedError


def find_accesses(ps: ParsedSource, fn, dialect, *, is_kernel: bool = True,
                  helpers=None) -> list:
    """Every memory access of one function definition, classified (see c_checks)."""
    from .checks import analyse_function

    return analyse_function(ps, fn, dialect, is_kernel=is_kernel,
                            helpers=helpers or {}).accesses


__all__ = ["parse", "ParsedSource", "Diagnostic", "Edit", "insert_before", "insert_after",
           "replace", "apply_edits", "prelude_lines", "line_directive", "map_build_log",
           "BuildError", "Access", "Base", "Dialect", "find_accesses", "strip", "children", "walk",
           "functions", "function_body", "called_name", "call_args", "unary_op",
           "binary_op", "evaluate_int", "kinds"]
