"""The edits that check the OpenCL accesses checks.py found (checks.py analyses, this module
rewrites): each checked access wrapped in its check, hidden arguments at helper calls.

The checks call functions the prelude defines (prelude.py):
  __sk_ix(long i, long n, long code, int axis, FB, FP)        -> i, or 0 after recording
                                   (__sk_ixu for a ulong index: it records that too)
  __sk_ixb(long i, long off, long esz, long nbytes, long code, FB, FP)
                            -> i when off + i*esz is in [0, nbytes - esz], else -(off/esz)
so a failing access touches element 0 instead of leaving its buffer; the work-item then leaves
at the end of the statement (see exits.py). FB and FP are `__sk_fb`, `__sk_fp`.
"""
from __future__ import annotations

from ...report import Status
from .checks import offset_of, tokens_text
from .edits import insert_after, insert_before
from .loop_versions import IndexCheck
from .parse import ParsedSource
from .model import FunctionFacts


def access_edits(ps: ParsedSource, facts: FunctionFacts, codes: dict) -> tuple:
    """Edits that wrap every checked access of `facts` in its check, and the index checks
    among them that loop versioning may hoist (loop_versions.IndexCheck).

    `codes` maps id(access) to the C literal of its failure code.
    """
    edits, indexes = [], []

    def index_check(a, extent, code, axis):
        ix = "__sk_ixu" if a.extra.get("unsigned") else "__sk_ix"   # ulong: 2**63 and up
        pair = (insert_before(a.index_start, f"{ix}((long)(", 1000 + a.depth),
                insert_after(a.index_end, f"), {extent}, {code}, {axis}, __sk_fb, __sk_fp)",
                             1000 + a.depth))
        edits.extend(pair)
        indexes.append(IndexCheck(a, extent, code, axis, *pair))

    fb = "__sk_fb, __sk_fp"
    for a in facts.accesses:
        if a.status != Status.CHECKED:
            continue
        code = codes[id(a)]
        d = 1000 + a.depth
        base = a.base
        if base is None:   # constant-size array or vector axis
            index_check(a, f"{a.extent}L", code, a.axis)
            continue
        if a.pointer_start < 0 and not a.extra.get("wrap_pointer") and \
                not a.extra.get("offset_arg") and base.kind == "param":
            # The parameter itself: the index against the element count.
            index_check(a, f"__sk_n_{base.name}", code, 0)
            continue
        ptr = None if a.pointer_start < 0 else tokens_text(ps, a.pointer_start,
                                                              a.pointer_end)
        off = base.offset if ptr is None else offset_of(base, ptr)
        if off == "0":
            off = "0L"
        target = ptr if ptr is not None else base.base
        elem = f"(long)sizeof(*({target}))"
        if a.extra.get("offset_arg"):
            elem = f"{a.elems}L * {elem}"
        tail = f", {off}, {elem}, {base.size}, {code}, {fb})"
        if a.extra.get("wrap_pointer"):
            edits.append(insert_before(a.pointer_start, "(", d))
            edits.append(insert_after(a.pointer_end, f" + __sk_ixb(0L{tail})", d))
        elif a.negate:
            edits.append(insert_before(a.index_start, "(-__sk_ixb(-(long)(", d))
            edits.append(insert_after(a.index_end, f"){tail})", d))
        else:
            edits.append(insert_before(a.index_start, "__sk_ixb((long)(", d))
            edits.append(insert_after(a.index_end, f"){tail}", d))
    return edits, indexes


def call_edits(ps: ParsedSource, facts: FunctionFacts) -> list:
    """Hidden arguments appended to every call of a rewritten helper."""
    edits = []
    for call in facts.calls:
        parts = ["__sk_fb", "__sk_fp"]
        for off, size in call.args:
            parts += [off, size]
        text = (", " if call.n_args else "") + ", ".join(parts)
        edits.append(insert_before(call.close_paren, text, 10_000))
    return edits


__all__ = ["access_edits", "call_edits"]
