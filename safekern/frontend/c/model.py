"""The facts the C front ends find and pass between their passes: plain dataclasses.

- `Root` / `Unknown`: what a pointer points into (a kernel's pointer parameter and its hidden
  size, a helper's parameter with base and size from its caller, an array of known size), or
  why that cannot be told (provenance.py).
- `Access`: one memory access of the user's source, how it is handled (checked, eliminated,
  unchecked with the reason) and the byte ranges an edit wraps; `Access.failure_site()` is
  its `FailureSite` (returned, not registered: the backend registers what a rewrite found).
- `HelperCall`: a call of the source's own function and what its hidden arguments are made
  of (both dialects' walks); `FunctionFacts`: what the OpenCL walk (checks.py) finds in one
  function (its parameters: param_info.ParamInfo), and what its rewrite (opencl_rewrite.py)
  reads.
- `Dialect`: the base class of the language dialects (opencl.py, cuda_dialect.py): what
  differs between C kernel languages.

Nothing here reads the tree except through the `ParsedSource` it is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ... import check_kinds
from ...failures import FailureSite, site_code
from ...report import Status
from .access_check import Check
from .launch_expr import PROVEN_REASON


#: The check kinds the C front ends make sites of: check_kinds.py says, in one place, what
#: each means (the exception a failure raises, its message, the report's label, the helpers).
BOUNDS, ASSERT, ZERO_DIVISION, CALL = (check_kinds.KINDS[k].name
                                       for k in ("bounds", "assert", "zero_division", "call"))


@dataclass(frozen=True)
class Root:
    """The memory a pointer may access: `size` bytes from `base` (C expressions); provenance.py
    finds it, the dialect names it (Dialect.param_root, array_root, scalar_root).

    kind "param": a kernel's pointer parameter (its size is a hidden argument of the launch);
    "helper_param": a pointer parameter of a helper (OpenCL) or __device__ function (CUDA):
    where it points and the size come from the caller; "array": an array of known size
    (private, __local/__shared__, program scope, __device__); "extern": CUDA's
    `extern __shared__` memory (the launch's dynamic shared memory); "scalar": a variable whose
    address is taken. Two roots are equal when they are the same memory.
    """

    kind: str
    name: str                   # the parameter/array as written
    base: str                   # C expression: where `name`'s memory is reached from
    size: str                   # C expression: the size in bytes of what may be accessed
    key: tuple                  # ("param", index) or ("var", declaration hash)
    scope: tuple | None = None  # (start, end) of the block a local array is declared in
    offset: str = "0"           # C expression: byte offset of `base` within the memory
    address_space: str = ""     # OpenCL: the address space of the memory ("__global", ...)


@dataclass(frozen=True)
class Unknown:
    """A pointer whose root the analysis cannot tell; `reason` is what the report says."""

    reason: str


@dataclass
class Access:
    """One memory access of the user's source, and how it is handled."""

    function: str
    kind: str                 # "subscript", "deref", "builtin", "vector"
    status: Status            # CHECKED, ELIMINATED (proven in bounds), UNCHECKED
    reason: str               # why safe/unchecked ("" for checked)
    start: int                # byte range of the whole access (for the report and caret)
    end: int
    index_start: int = -1     # byte range of the index (subscript) / offset operand
    index_end: int = -1
    array: str = ""
    axis: int | None = None
    extent: int | None = None # constant extent of the axis (arrays)
    base: Root | None = None   # what a pointer access is checked against
    pointer_start: int = -1   # byte range of the pointer expression (derived pointers)
    pointer_end: int = -1
    elems: int = 1            # elements touched (vloadN: N)
    negate: bool = False      # the offset operand is subtracted (p - k)
    builtin: str = ""
    depth: int = 0            # AST depth (orders insertions that meet at one offset)
    extra: dict = field(default_factory=dict)
    check: Check | None = None  # a checked access: what the edit pass writes (access_check)

    def reported(self) -> tuple:
        """(status, reason) as the report gives them: a checked access that launch
        predicates prove (launch.py) or whose check a loop's versioning runs before the loop
        (loop_versions.py) says so."""
        if self.status == Status.CHECKED and self.extra.get("predicate"):
            return Status.PROVEN_AT_LAUNCH, PROVEN_REASON
        if self.status == Status.CHECKED and self.extra.get("hoisted"):
            return Status.HOISTED, self.extra["hoisted"]
        return self.status, self.reason

    def place(self, ps) -> tuple:
        """(file, line, col, end col or None, physical line) of the access's index (else the
        access): file and line as the compiler names them (the source's own `#line`
        followed: ParsedSource.place), the physical line for the text shown."""
        s = self.index_start if self.index_start >= 0 else self.start
        e = self.index_end if self.index_end >= 0 else self.end
        filename, lineno, col, physical = ps.place(s)
        end_line, end_col = ps.line_col(e)
        if end_line != physical or e <= s:
            end_col = None
        return filename, lineno, col, end_col, physical

    def location(self, ps):
        """(line, col, end col or None): the line as the compiler names it (place())."""
        return self.place(ps)[1:4]

    def failure_site(self, ps, backend: str, kind: str = BOUNDS) -> FailureSite:
        """What a failure code of this access means. The rewrite only returns it (in its
        `failure_sites`); the backend registers it in failures.TABLE."""
        filename, lineno, col, end_col, physical = self.place(ps)
        # (the code from the physical place: a source's `#line` may name one place twice)
        # (and from the line's text: two programs built under one filename name their
        # places alike, and the process-wide failure table must tell their sites apart)
        code = site_code(backend, ps.filename, physical, col, self.function, self.array,
                         self.axis, self.kind, kind, ps.source_line(physical))
        return FailureSite(
            code=code, kind=kind, kernel=self.function, filename=filename, lineno=lineno,
            source_line=ps.source_line(physical), col=col, end_col=end_col, array=self.array,
            axis=self.axis)


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
      is_kernel(fn_cursor) -> bool; pointer_param(param_cursor) -> bool (gets a hidden size)
      address_space(type_spelling) -> "__global", "__local", ... or "" (used in the
                           `(const AS char *)` casts of byte-offset checks)
      pointer_builtin(name) -> (pointer arg, elements touched, offset arg or None) for
                           built-ins that access memory through a pointer (atomics, vloadN),
                           "skip" for ones that do not, None: reported as unchecked
      barrier_call_edits(ps, call) -> edits making a barrier also fence the group's flag
      group_barrier_text() -> a statement that syncs the group (after collectives)
      param_root(param, index, kernel=, moved=), array_root(decl, text, scope),
      scalar_root(decl, name) -> Root (or Unknown): the C text of a root's memory and size,
                           which differ per dialect (hidden argument names, `long` vs
                           `long long`, address spaces); provenance.py decides what the root is
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

    def pointer_param(self, param) -> bool:
        """A parameter (PARM_DECL) that gets a hidden size: a pointer or array."""
        return param.type.get_canonical().kind.name in ("POINTER", "INCOMPLETEARRAY",
                                                        "CONSTANTARRAY")

    def address_space(self, type_spelling: str) -> str:
        return ""

    def pointer_builtin(self, name: str):
        return None

    def barrier_call_edits(self, ps, call) -> list:
        return []

    def group_barrier_text(self) -> str:
        raise NotImplementedError

    def param_root(self, param, index: int, *, kernel: bool, moved: bool) -> Root:
        raise NotImplementedError

    def array_root(self, decl, text: str, scope) -> Root | Unknown:
        raise NotImplementedError

    def scalar_root(self, decl, name: str) -> Root | Unknown:
        raise NotImplementedError



def call_failure_site(ps, start: int, end: int, backend: str, caller: str, callee: str,
                      in_kernel: bool) -> FailureSite:
    """The site of a call of the source's own function `callee` from `caller`, spanning bytes
    [start, end) of the callee's name: a failure inside the callee names it (call_chains.py;
    both dialects)."""
    filename, lineno, col, physical = ps.place(start)
    end_line, end_col = ps.line_col(end)
    # (the code from the physical place: a source's `#line` may name one place twice)
    return FailureSite(
        code=site_code(backend, ps.filename, physical, col, caller, callee, CALL,
                       ps.source_line(physical)), kind=CALL,
        kernel=caller, filename=filename, lineno=lineno, source_line=ps.source_line(physical),
        col=col, end_col=end_col if end_line == physical and end > start else None,
        array=None, axis=None, callee=callee, in_kernel=in_kernel)


@dataclass
class HelperCall:
    """A call of one of the source's own functions that passes hidden arguments, as the walk
    found it (both dialects: checks.py, cuda_calls.py); the dialect's edit pass spells them
    (opencl_edits.call_edits, cuda_edits.hidden_argument_edits).

    `args`, one per pointer parameter of the callee: what the caller's argument points into,
    (Root, pointer) -- `pointer` the argument's byte range, None where the argument is the
    root's base itself or only the root counts --, or None where the caller cannot tell (the
    walk records that argument unchecked)."""

    cursor: object
    callee: str
    at: int                  # byte offset: the call's ')' (OpenCL, CUDA's device-side
    #                          launches: inserted before) or its '(' (CUDA: inserted after)
    n_args: int
    args: list = field(default_factory=list)
    target: object = None    # CUDA: the cuda_rewrite.Function called
    chain: int | None = None     # the call site's code (call_chains.py, __sk_cs)
    caller_kernel: bool = False  # the caller is a kernel (how `chain` is passed)
    launch: bool = False         # CUDA: a device-side launch `child<<<g, b>>>(...)`


@dataclass
class FunctionFacts:
    """What the walk of one function found (walker.py, both dialects): records only, which
    the dialect's rewrite (opencl_rewrite.py, cuda_rewrite.py) turns into edits."""

    name: str
    cursor: object
    is_kernel: bool
    params: list               # param_info.ParamInfo (OpenCL), PARM_DECL cursors (CUDA)
    accesses: list             # every Access (checked, safe, unchecked)
    calls: list                # HelperCall: calls that pass hidden arguments
    #: the pointer parameters that move (their entry value saved): ParamInfo (OpenCL),
    #: parameter indexes (CUDA)
    moved: object
    #: the barrier calls (OpenCL: cursors; CUDA: what cuda_edits.barrier_edits replaces)
    barriers: list = field(default_factory=list)
    #: param_of(pointer expression) -> index of the parameter whose memory it points into,
    #: None (an array of the function), or why that cannot be told (writes.py)
    param_of: object = None
    #: CUDA: the failure sites of the checked accesses and of the call sites (call chains)
    failure_sites: list = field(default_factory=list)
    callees: set = field(default_factory=set)        # CUDA: the source's functions called
    #: CUDA: params checked by element count (access_check.counted_params of the checks)
    count_params: set = field(default_factory=set)
    fields: dict = field(default_factory=dict)       # CUDA: struct pointer fields used
    safety: object = None      # CUDA: safety.SafetyRewriter (asserts, divisions) of the walk

    @property
    def checked(self):
        return [a for a in self.accesses if a.status == Status.CHECKED]



__all__ = ["Access", "Root", "Unknown", "Dialect", "HelperCall",
           "FunctionFacts", "BOUNDS",
           "ASSERT", "ZERO_DIVISION", "CALL"]
