"""The one exception tree of safekern.

Every class is also the built-in it means (`BoundsError` is an `IndexError`), keeps its data as
attributes, and pickles (a worker process can send one back to its parent).

    SafekernError(Exception)
      KernelError(RuntimeError)        a check failed inside a kernel; raised at sync()
        BoundsError(IndexError)        an index outside an array's axis
        KernelAssertionError(AssertionError)      an `assert` in a kernel failed
        KernelZeroDivisionError(ZeroDivisionError) an integer division by zero in a kernel
        Kernel<Name>(<the raised class>)          `raise <Name>(...)` in a kernel
                                                  (kernel_exception_class(cls))
      CompilationError                 the kernel source cannot be checked or compiled
        UnsupportedError(NotImplementedError)   a construct the rewriter does not handle
"""
from __future__ import annotations

import functools


def caret_line(source_line: str, col: int | None, end_col: int | None) -> str:
    """`source_line` and, under it, carets from `col` to `end_col` (0-based, end exclusive)."""
    text = source_line.rstrip("\n")
    if col is None:
        return text
    width = max(1, (end_col if end_col is not None and end_col > col else col + 1) - col)
    width = min(width, max(1, len(text) - col))
    # Keep tabs so the carets line up with the source line in a terminal.
    pad = "".join(ch if ch == "\t" else " " for ch in text[:col])
    return f"{text}\n{pad}{'^' * width}"


def format_source(source_line: str | None, col=None, end_col=None, indent="    ") -> str:
    if not source_line:
        return ""
    stripped = source_line.rstrip("\n")
    lead = len(stripped) - len(stripped.lstrip())
    body = stripped[lead:]
    shown = caret_line(body, None if col is None else max(0, col - lead),
                       None if end_col is None else max(0, end_col - lead))
    return "\n".join(indent + line for line in shown.split("\n"))


class SafekernError(Exception):
    """Root of every exception safekern raises."""


class KernelError(SafekernError, RuntimeError):
    """A check failed inside a kernel. Raised by `safekern.sync()`."""

    _fields = ("kernel", "filename", "lineno", "source_line", "thread", "block",
               "skipped_launches", "col", "end_col", "called_from", "call_chain")

    def __init__(self, message: str = "", *, kernel=None, filename=None, lineno=None,
                 source_line=None, thread=None, block=None, skipped_launches=0,
                 col=None, end_col=None, called_from=None, call_chain=()):
        self.kernel = kernel
        # For a failure inside a C device function: the call sites it came through, innermost
        # first (failures.FailureSite of kind "call": `kernel` the caller, `lineno` the call).
        self.call_chain = tuple(call_chain or ())
        # For a failure inside a device function: the launched kernel(s) that call it.
        self.called_from = called_from
        self.filename = filename
        self.lineno = lineno
        self.source_line = source_line
        self.thread = tuple(thread) if thread is not None else None
        self.block = tuple(block) if block is not None else None
        self.skipped_launches = skipped_launches
        self.col = col
        self.end_col = end_col
        self.message = message
        self.device = None       # which device's failure buffer held it (set by the check)
        self.others = []         # failures on other devices raised together with this one
        super().__init__(self._full_message())

    def _headline(self) -> str:
        return self.message or "check failed"

    def _full_message(self) -> str:
        lines = [self._headline()]
        where = f"  in kernel {self.kernel!r}" if self.kernel else "  in a kernel"
        if self.kernel and self.called_from:
            callers = " or ".join(repr(k) for k in self.called_from)
            where = f"  in device function {self.kernel!r} called from kernel {callers}"
        if self.filename:
            where += f" at {self.filename}:{self.lineno}"
        if self.thread is not None:
            where += f", thread {self.thread} block {self.block}"
        lines.append(where)
        src = format_source(self.source_line, self.col, self.end_col, indent="      ")
        if src:
            lines.append(src)
        for frame in self.call_chain:
            lines.append(f"  called from {frame.kernel!r} at {frame.filename}:{frame.lineno}")
            src = format_source(frame.source_line, frame.col, frame.end_col, indent="      ")
            if src:
                lines.append(src)
        if self.call_chain and not self.call_chain[-1].in_kernel:
            lines.append("  (outer calls not recorded)")
        if self.skipped_launches:
            n = self.skipped_launches
            lines.append(f"  ({n} later checked launch{'es' if n != 1 else ''} skipped "
                         "because this failure was pending)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._full_message()

    def _state(self) -> dict:
        return {name: getattr(self, name) for name in self._fields}

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self._state()))


class BoundsError(KernelError, IndexError):
    """An index outside the extent of an array's axis."""

    _fields = KernelError._fields + ("array", "axis", "index", "size")

    def __init__(self, message: str = "", *, array=None, axis=None, index=None, size=None,
                 **kw):
        self.array = array
        self.axis = axis
        self.index = index
        self.size = size
        super().__init__(message, **kw)

    def _headline(self) -> str:
        if self.message:
            return self.message
        axis = "" if self.axis is None else f" for axis {self.axis}"
        array = f" (array {self.array!r})" if self.array else ""
        return f"index {self.index} out of bounds{axis} with size {self.size}{array}"


def _rebuild(cls, message, state):
    return cls(message, **state)


class RaceError(KernelError):
    """Two threads of one launch would touch one element of global memory, one of them
    writing, without synchronisation (an in-place update read by a neighbour, two views of one
    buffer). Raised at the launch, before the kernel runs: nothing is written."""

    _fields = KernelError._fields + ("array", "other", "write_line", "read_line", "write_text",
                                     "other_text", "other_write", "across_blocks")

    def __init__(self, message: str = "", *, array=None, other=None, write_line=None,
                 read_line=None, write_text=None, other_text=None, other_write=False,
                 across_blocks=False, **kw):
        self.array = array
        self.other = other
        self.write_line = write_line
        self.read_line = read_line
        self.write_text = write_text
        self.other_text = other_text
        self.other_write = other_write
        #: the two threads are in different blocks, which a barrier between them does not order
        self.across_blocks = across_blocks
        super().__init__(message, **kw)

    def _headline(self) -> str:
        if self.message:
            return self.message
        verb = "writes" if self.other_write else "reads"
        where = f" (array {self.array!r}" + (
            f", the same memory as {self.other!r})" if self.other != self.array else ")")
        other = "a thread of another block" if self.across_blocks else "another thread"
        why = "; a barrier orders the threads of one block only" \
            if self.across_blocks else ""
        return (f"race: a thread writes `{self.write_text}` (line {self.write_line}) and "
                f"{other} {verb} the same element through `{self.other_text}` "
                f"(line {self.read_line}){where}{why}")


class RaceWarning(UserWarning):
    """A launch whose arguments share memory, where safekern cannot prove that no two threads
    touch one element (a data-dependent index, an unsupported layout)."""


class UncheckedWarning(UserWarning):
    """Code that runs unchecked: a kernel safekern cannot check (its source cannot be found:
    built by exec, typed at a prompt), compiled by numba as it is (its check_report() says
    so), or a plain `@cuda.jit(device=True)` function a checked kernel calls."""


class KernelAssertionError(KernelError, AssertionError):
    """`assert cond, "message"` failed inside a kernel."""


class KernelZeroDivisionError(KernelError, ZeroDivisionError):
    """An integer `//` or `%` (or, with SAFEKERN_FLOAT_DIVISION=raise, any division) by zero
    inside a kernel."""


_raised_classes: dict = {}


def kernel_exception_class(raised: type) -> type:
    """The class of what `raise raised(...)` in a kernel becomes on the host: both a
    KernelError (location, thread, block) and a `raised` (so `except raised:` catches it).
    KernelError itself where the two cannot be combined (a class with its own instance layout,
    such as OSError's)."""
    if not (isinstance(raised, type) and issubclass(raised, BaseException)):
        raise TypeError(f"{raised!r} is not an exception class")
    if issubclass(raised, KernelError):
        return raised
    cls = _raised_classes.get(raised)
    if cls is None:
        try:
            cls = type(f"Kernel{raised.__name__}", (KernelError, raised), {
                "__module__": "safekern", "raised_type": raised,
                "__doc__": f"`raise {raised.__name__}(...)` inside a kernel.",
                "__reduce__": _reduce_raised})
        except TypeError:           # "multiple bases have instance lay-out conflict"
            cls = KernelError
        _raised_classes[raised] = cls
    return cls


def _reduce_raised(self):
    return (_rebuild_raised, (self.raised_type, self.message, self._state()))


def _rebuild_raised(raised, message, state):
    return kernel_exception_class(raised)(message, **state)


class CompilationError(SafekernError):
    """The kernel source cannot be checked or compiled; names file:line with a caret."""

    def __init__(self, problem: str, *, filename=None, lineno=None, source_line=None,
                 col=None, end_col=None, kernel=None):
        self.problem = problem
        self.filename = filename
        self.lineno = lineno
        self.source_line = source_line
        self.col = col
        self.end_col = end_col
        self.kernel = kernel
        super().__init__(self._full_message())

    def _full_message(self) -> str:
        where = f"{self.filename}:{self.lineno}: " if self.filename else ""
        head = f"{where}{self.problem}"
        if self.kernel:
            head += f" (in {self.kernel!r})"
        src = format_source(self.source_line, self.col, self.end_col)
        return f"{head}\n{src}" if src else head

    def __str__(self) -> str:
        return self._full_message()

    def __reduce__(self):
        return (_rebuild_compile, (type(self), self.problem, {
            "filename": self.filename, "lineno": self.lineno, "source_line": self.source_line,
            "col": self.col, "end_col": self.end_col, "kernel": self.kernel}))


class UnsupportedError(CompilationError, NotImplementedError):
    """A construct the rewriter cannot check; rejected rather than left unchecked."""


class InternalError(CompilationError, RuntimeError):
    """A bug in safekern met while checking a kernel: says which kernel and which line it was
    checking (frontend/located.py turns any unexpected exception in a pass into this)."""


def _rebuild_compile(cls, problem, state):
    return cls(problem, **state)


# -- the boundary between the user's code and safekern's ---------------------------------------
# An error safekern raises names the user's file and line in its message; the frames of
# safekern's own modules it passed through (the AST visitor, the cache, the sync hooks) say
# nothing to the user and push the message off the screen. numba-cuda and Triton hide theirs
# too. Each public entry point is a boundary: what it raises keeps its message, its explicit
# cause (`raise ... from err`) and its data, loses the internal traceback and the implicit
# context, and so shows the user's frame and the boundary's one line. SAFEKERN_DEBUG_INTERNALS=1
# keeps everything (for a bug report).


def user_error(exc: BaseException) -> BaseException:
    """Mark `exc` (numba's own kind of error for a bad argument: a TypeError, a SyntaxError)
    as the user's: a boundary it passes raises it as for_user() makes it."""
    exc._safekern_user_error = True
    return exc


def for_user(exc: BaseException) -> BaseException:
    """`exc` ready to be raised at a boundary: its internal traceback and implicit context
    dropped, unless SAFEKERN_DEBUG_INTERNALS=1."""
    from . import config

    if config.get().debug_internals:
        return exc
    exc.__suppress_context__ = True
    return exc.with_traceback(None)


def user_boundary(fn):
    """Wrap a public entry point: a SafekernError (or a user_error()) raised inside reaches
    the caller as for_user() makes it (pytest and IPython also hide this frame:
    __tracebackhide__)."""
    @functools.wraps(fn)
    def boundary(*args, **kwargs):
        __tracebackhide__ = True      # noqa: F841 - read by pytest and IPython
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if isinstance(exc, SafekernError) or getattr(exc, "_safekern_user_error", False):
                raise for_user(exc)   # safekern's frames trimmed; see the message
            raise

    return boundary


# Shown as safekern.BoundsError in tracebacks; also where pickle finds them.
for _cls in (SafekernError, KernelError, BoundsError, UncheckedWarning, RaceError, RaceWarning,
             KernelAssertionError,
             KernelZeroDivisionError, CompilationError, UnsupportedError, InternalError):
    _cls.__module__ = "safekern"


__all__ = ["SafekernError", "KernelError", "BoundsError", "UncheckedWarning", "RaceError", "RaceWarning",
           "KernelAssertionError",
           "KernelZeroDivisionError", "kernel_exception_class", "CompilationError",
           "UnsupportedError", "caret_line", "format_source", "for_user", "user_boundary",
           "user_error"]
