"""The check one access needs, as the C walker found it (both dialects); the dialect's edit
pass (cuda_edits.py, opencl_edits.py) writes it as text.

A walk only analyses: it records on each checked `model.Access` a `Check` made of byte ranges
of the user's text and the memory they are checked against, never C text of the check itself
(that differs per dialect: `__sk_ix`, `__sk_ptr`, `__sk_ixb`, their argument lists).

    how "index"    the index at `index` against `extent`: an int (an array axis of constant
                   size or a vector's components), ("param", i) (a kernel's pointer parameter
                   i, against its element count), or C text (an extent only the compiler
                   knows: CUDA's dynamic shared memory, a template-dependent array);
        "offset"   the pointer at `pointer` (None: the root's base itself) plus the index at
                   `index` (minus it: `negate`) must reach an element inside `root`
                   (`p[i]`, `*(p + i)` on a derived pointer; OpenCL: `vloadN(i, p)`);
        "element"  the pointer at `pointer` must point at an element inside `root`
                   (`*p`, `p->f`, an atomic's address).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    how: str                       # "index", "offset", "element" (see the module)
    index: tuple | None = None     # (start, end): byte range of the index
    pointer: tuple | None = None   # (start, end): byte range of the pointer expression
    extent: object = None          # "index": int, ("param", i) or C text
    axis: int = 0                  # "index": the array's axis
    root: object = None            # "offset"/"element": model.Root, the memory reached
    elems: int | None = None       # elements touched, where a built-in says (vloadN: N)
    negate: bool = False           # "offset": the index is subtracted (p - k)
    unsigned: bool = False         # the index is a 64-bit unsigned integer
    int32: bool = False            # the index is an `int` (OpenCL tests it in 32 bits)
    #: CUDA `p[i]` on a derived pointer: where the text starts and the '[' and ']' tokens
    #: ((start, end) each), which the edit replaces
    brackets: tuple | None = None
    depth: int = 0                 # AST depth: orders insertions that meet at one offset
    #: "offset" on a struct pointer field subscripted as itself (`g.nlist[k]`): its extent for
    #: launch predicates, ("field", param, slot, element size, text) -- the launch knows the
    #: field's allocation (launch.py, backends/cupy/struct_args.py)
    field_extent: tuple | None = None

    @property
    def launch_extent(self):
        """What a launch predicate may bound the index by (launch.py): a constant extent,
        ("param", i) or a struct field's ("field", ...); None: this check has none."""
        if self.how == "index" and isinstance(self.extent, (int, tuple)):
            return self.extent
        return self.field_extent


def is_int32(index) -> bool:
    """The index expression (a libclang cursor) is an `int`: both dialects test it in 32 bits
    (`Check.int32`)."""
    return index.type.get_canonical().kind.name == "INT"


__all__ = ["Check", "is_int32"]
