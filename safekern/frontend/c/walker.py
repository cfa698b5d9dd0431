"""The one access walk of the C front end, for CUDA C and OpenCL C (analysis only).

A walk visits one function body once and records what it finds, never editing text:

- every indexed access (array and pointer subscripts, `*p`, `p->f`, struct pointer fields,
  built-ins that access memory through a pointer) as a `model.Access`; a checked one carries
  its `access_check.Check`, which the dialect's edit pass (cuda_edits.py, opencl_edits.py)
  turns into text that keeps the lines;
- the calls of the source's own functions with what their hidden arguments are made of, the
  barriers, and what the dialect needs besides (its walker's attributes).

`AccessWalker` is the walk itself: the visit of the tree, the dispatch per node kind, the
record of an access, what a pointer points into (provenance.py) or why that is not known, and
the location of an unexpected error (the node being visited). What differs between the
dialects is in the hooks a dialect's walker defines (checks.OpenCLWalker,
cuda_access.CudaWalker): `setup` (what pointers point into: address spaces and `__global`
parameters vs plain pointers, struct pointer fields), `on_subscript` (OpenCL vector types,
CUDA template-dependent and operator subscripts), `on_unary`, `on_member`, `on_call`
(barriers, atomics and built-ins, hidden arguments and their spelling, CUDA's call chains
`__sk_cs` and device-side launches) and `handlers` for node kinds only one dialect has
(lambdas, inline assembly, CUDA's divisions in the walk).

Whatever a hook finds checkable gets its `Check` from access_check.py's constructors
(`axis_check`, `pointer_check`, `element_check`), which set every flag the same way for both
dialects; `written_as_root` tells them a pointer written as its memory itself (a kernel
parameter the function never moves, a struct pointer field).

A hook returns True when it visited the node's children itself (CUDA's hooks choose the depth
and the context of each child); otherwise the walk visits them after it.
"""
from __future__ import annotations

from ...report import Status
from .model import Access, Unknown
from .parse import kids, kinds, strip

#: the reason a pointer whose provenance is a null pointer is not checked
NULL_POINTER = "a null pointer"


class AccessWalker:
    """One function body's walk (see the module); a dialect's walker subclasses it."""

    def __init__(self, ps, function: str):
        self.ps = ps
        self.K = kinds()
        self.function = function     # the name the records carry
        self.prov = None             # provenance.Provenance of the body (setup)
        self.accesses: list[Access] = []
        self.path: list = []         # the nodes being visited, outermost first
        self.depth = 0               # the depth of the node being visited
        self.at = None               # the node being visited (where an error is reported)
        K = self.K
        self._dispatch = {K.ARRAY_SUBSCRIPT_EXPR: self.on_subscript,
                          K.UNARY_OPERATOR: self.on_unary, K.MEMBER_REF_EXPR: self.on_member,
                          K.CALL_EXPR: self.on_call}
        self._dispatch.update(self.handlers())

    # -- the walk --------------------------------------------------------------------------------
    def walk(self, body, offset: int):
        """Walk `body`, located: an unexpected exception names the function, and the line of
        the node being visited (or of `offset`, the function's name, before the first)."""
        with self.ps.located(self.function, offset, lambda: self.at):
            self.setup(body)
            self.visit(body, 0, {})
            return self.result()

    def visit(self, c, depth: int, ctx: dict):
        """Visit `c` at `depth`; `ctx` holds what the walk knows of the context
        ("unchecked": why nothing in it can be checked)."""
        self.at = c
        self.depth = depth
        if c.kind == self.K.CXX_UNARY_EXPR:      # sizeof / alignof / vec_step: not evaluated
            return
        handler = self._dispatch.get(c.kind)
        self.path.append(c)
        try:
            if handler is not None and handler(c, depth, ctx):
                return
            for ch in kids(c):
                self.visit(ch, depth + 1, ctx)
        finally:
            self.path.pop()

    def parents(self) -> list:
        """The nodes above the one being visited, outermost first."""
        return self.path[:-1]

    # -- records ---------------------------------------------------------------------------------
    def record(self, kind: str, status: Status, reason: str, start: int, end: int,
               **fields) -> Access:
        """A found access (model.Access) of this function, at the depth being visited."""
        a = Access(self.function, kind, status, reason, start, end, depth=self.depth, **fields)
        self.accesses.append(a)
        return a

    def root(self, expr, at: int | None = None):
        """What the pointer expression `expr` points into (model.Root, provenance.py), or
        the reason that cannot be told (a str, what the report says)."""
        root = self.prov.root_of(expr, at)
        if root is None:
            return NULL_POINTER
        if isinstance(root, Unknown):
            return root.reason
        return root

    def written_as_root(self, expr, root) -> bool:
        """The pointer expression `expr` is written as the memory `root` it reaches: a
        pointer parameter that the function never moves, or the struct pointer field the
        root is (`g.nlist`); access_check.pointer_check checks such a pointer's index
        without pointer arithmetic."""
        if root.kind == "field":
            e = strip(expr)
            return e.kind == self.K.MEMBER_REF_EXPR and self.ps.text(e).strip() == root.base
        return self.prov.is_param_itself(expr)

    # -- hooks -----------------------------------------------------------------------------------
    def setup(self, body):
        """Before the walk: what pointers point into (self.prov) and whatever else the
        dialect's hooks read."""
        raise NotImplementedError

    def result(self):
        """What the walk found, as the dialect's rewrite reads it."""
        raise NotImplementedError

    def handlers(self) -> dict:
        """Hooks for node kinds besides subscripts, unary operators, members and calls."""
        return {}

    def on_subscript(self, c, depth, ctx) -> bool:
        return False

    def on_unary(self, c, depth, ctx) -> bool:
        return False

    def on_member(self, c, depth, ctx) -> bool:
        return False

    def on_call(self, c, depth, ctx) -> bool:
        return False


__all__ = ["AccessWalker", "NULL_POINTER"]
