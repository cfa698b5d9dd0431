"""The edits that check the OpenCL accesses checks.py found (checks.py analyses, this module
rewrites): each checked access wrapped in its check (`Access.check`, access_check.Check),
hidden arguments at helper calls.

The checks call functions the prelude defines (prelude.py):
  __sk_ix(long i, long n, long code, int axis, FB, FP)        -> i, or 0 after recording
                                   (__sk_ixu for a ulong index: it records that too;
                                    __sk_ix32 takes an int: tested as the long it is
                                    sign-extended to, the long the address is made of)
  __sk_ixb(long i, long off, long esz, long nbytes, long code, FB, FP)
                            -> i when off + i*esz is in [0, nbytes - esz], else -(off/esz)
so a failing access touches element 0 instead of leaving its buffer; the work-item then leaves
at the end of the statement (see exits.py). FB and FP are `__sk_fb`, `__sk_fp`.
"""
from __future__ import annotations

from ... import call_chains
from ...report import Status
from .checks import LONG_MAX, offset_expr, offset_of, tokens_text
from .edits import insert_after, insert_before
from .loop_versions import IndexCheck
from .parse import ParsedSource
from .prelude import opaque_index, opencl_index_test
from .model import FunctionFacts


def index_helper(check) -> tuple:
    """The helper that checks an "index" check's index, and the type it takes the index as:
    a ulong's records that it is unsigned (2**63 and up read back as themselves); an `int`'s
    takes it as an int and tests the long it is sign-extended to (prelude._index_check: not
    in 32 bits, which an int arithmetic's overflow let through to the address)."""
    if check.unsigned:
        return "__sk_ixu", "long"
    if check.int32:
        return "__sk_ix32", "int"
    return "__sk_ix", "long"


def extent_text(check) -> str:
    """An "index" check's extent as C text: a constant-size array or vector axis, or a
    kernel's pointer parameter itself against its element count."""
    extent = check.extent
    return f"__sk_n_{check.root.name}" if isinstance(extent, tuple) else f"{extent}L"


def access_edits(ps: ParsedSource, facts: FunctionFacts, codes: dict) -> tuple:
    """Edits that wrap every checked access of `facts` in its check, and the index checks
    among them that loop versioning may hoist (loop_versions.IndexCheck).

    `codes` maps id(access) to the C literal of its failure code.
    """
    edits, indexes = [], []
    fb = "__sk_fb, __sk_fp"
    for a in facts.accesses:
        check = a.check
        if a.status != Status.CHECKED:
            continue
        code = codes[id(a)]
        d = 1000 + check.depth
        if check.how == "index":
            text = extent_text(check)
            ix, itype = index_helper(check)
            opq, end = opaque_index("opencl", ix) if check.opaque else ("", "")
            pair = (insert_before(check.index[0], f"{ix}({opq}({itype})(", d),
                    insert_after(check.index[1],
                                 f"){end}, {text}, {code}, {check.axis}, {fb})", d))
            edits.extend(pair)
            indexes.append(IndexCheck(a, text, code, check.axis, *pair))
            continue
        base = check.root
        ptr = None if check.pointer is None else tokens_text(ps, *check.pointer)
        off = base.offset if ptr is None else offset_of(base, ptr)
        if off == "0":
            off = "0L"
        target = ptr if ptr is not None else base.base
        elem = f"(long)sizeof(*({target}))"
        if check.elems is not None:
            elem = f"{check.elems}L * {elem}"
        tail = f", {off}, {elem}, {base.size}, {code}, {fb})"
        if check.how == "element":
            edits.append(insert_before(check.pointer[0], "(", d))
            edits.append(insert_after(check.pointer[1], f" + __sk_ixb(0L{tail})", d))
        else:
            # (an array's: the index as an opaque value, as a constant extent's: Check.opaque)
            opq, end = opaque_index("opencl", "__sk_ixb") if check.opaque else ("", "")
            if check.negate:
                edits.append(insert_before(check.index[0], f"(-__sk_ixb({opq}-(long)(", d))
                edits.append(insert_after(check.index[1], f"){end}{tail})", d))
            else:
                edits.append(insert_before(check.index[0], f"__sk_ixb({opq}(long)(", d))
                edits.append(insert_after(check.index[1], f"){end}{tail}", d))
    return edits, indexes


def precheck_text(check, var: str, code: str) -> str:
    """The statement a precheck puts before its statement (prechecks.py): the test and the
    record of the check's own helper (index_helper; prelude.py's words) on the index
    variable `var`, then the work-item leaves (a kernel without barriers)."""
    ix, itype = index_helper(check)
    v = f"({itype})({var})"
    bits = 1 if ix == "__sk_ixu" else 0
    n = extent_text(check)
    return (f"if (__SK_UNLIKELY({opencl_index_test(ix, v, n)})) {{ __sk_fail_bits(__sk_fb, "
            f"{code}, {v}, {n}, {check.axis}, {bits}); return; }} ")


def call_edits(ps: ParsedSource, facts: FunctionFacts, grouped=frozenset(),
               group_args: str = "") -> list:
    """Hidden arguments appended to every call of a rewritten helper; a call of one of
    `grouped` (helpers with barriers that can fail) also passes `group_args`, the group's
    failure and barrier counts (exits.py)."""
    edits = []
    for call in facts.calls:
        # the call chain (call_chains.py; 0 where the device's 31-bit codes leave no room)
        chain = "0UL" if call.chain is None else \
            call_chains.argument(call.chain, in_kernel=call.caller_kernel, unsigned="UL")
        parts = ["__sk_fb", "__sk_fp", chain]
        for arg in call.args:
            # the byte offset of the argument in the caller's memory, and that memory's size
            # (0 and LONG_MAX where the caller cannot tell: unchecked)
            parts += ["0L", LONG_MAX] if arg is None else [offset_expr(ps, *arg), arg[0].size]
        if call.callee in grouped:
            parts.append(group_args)
        text = (", " if call.n_args else "") + ", ".join(parts)
        edits.append(insert_before(call.at, text, 10_000))
    return edits


__all__ = ["access_edits", "call_edits", "extent_text", "precheck_text"]
