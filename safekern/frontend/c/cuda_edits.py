"""The edits that check the CUDA accesses and barriers the walker found (cuda_access.py and
cuda_calls.py analyse, this module rewrites).

Each checked access carries its check (`Access.check`, access_check.Check: byte ranges and the
memory they are checked against); here it becomes C text:

    "index"     i -> __sk_ix(i, extent, CODE, axis, __sk_fb): an array's axis, or a kernel's
                pointer parameter i against its element count (__sk_n_<i>); `__sk_ix32`
                for an `int` index (index_helper: the same test, of the long it is
                sign-extended to); also a struct's pointer field
                subscripted as itself (`g.nlist[k]`), against the field's element count
    "offset"    p[i] -> (*__sk_ptr((p) + (i), base, size, CODE, __sk_fb)): a derived pointer
                against its root (the '[' and ']' tokens replaced)
    "element"   p -> __sk_ptr(p, base, size, CODE, __sk_fb): *p, p->f, an atomic's address

CODE is the access's failure code; in a device function it is XORed with the call chain the
function was reached through (call_chains.py), so a failure names its callers.
"""
from __future__ import annotations

from ... import call_chains
from ...report import Status
from . import device_launch, edits as E
from .loop_versions import IndexCheck
from .prelude import opaque_index


def code_text(code: int, *, kernel: bool) -> str:
    """The C text of a failure code in a kernel (a literal) or a device function."""
    return f"{code:#x}ULL" if kernel else call_chains.check_code(code)


def check_edits(accesses, *, kernel: bool) -> tuple:
    """The edits of every checked access of one function, in the order found, and the index
    checks among them that loop versioning may hoist (loop_versions.IndexCheck; a kernel's:
    in a device function the code depends on the call chain)."""
    out, indexes = [], []
    for a in accesses:
        check = a.check
        if a.status != Status.CHECKED or check is None:
            continue
        code = code_text(a.extra["code"], kernel=kernel)
        depth = check.depth
        if check.how == "index" or (check.how == "offset" and check.field_extent is not None
                                    and not check.negate):
            # `g.nlist[k]`, a struct's pointer field subscripted as itself, is k against the
            # field's elements (k * size within the bytes from the field's address on: the
            # same test as __sk_ptr's offset, one compare instead of pointer arithmetic; an
            # H100: CuPy's bfs_step 1.19x -> 1.13x, benchmarks/results/2026-11-27c-device-calls)
            extent = _extent_text(check.extent) if check.how == "index" else \
                f"__sk_count({check.root.size}, {check.field_extent[3]}LL)"
            (i0, i1) = check.index
            opq, end = opaque_index("cuda") if check.opaque else ("", "")
            pair = (E.insert_before(i0, f"{index_helper(check)}({opq}", depth),
                    E.insert_after(i1, f"{end}, {extent}, {code}, {check.axis}, __sk_fb)",
                                   depth))
            out += pair
            if kernel:
                indexes.append(IndexCheck(a, extent, code, check.axis, *pair))
        elif check.how == "offset":
            first, (o0, o1), (c0, c1) = check.brackets
            root = check.root
            # (an array's: the index as an opaque value, as a constant extent's: Check.opaque)
            opq, end = opaque_index("cuda") if check.opaque else ("", "")
            trio = [E.insert_before(first, "(*__sk_ptr((", depth),
                    E.replace(o0, o1, f") + ({opq}"),
                    E.replace(c0, c1, f"{end}), {root.base}, {root.size}, {code}, __sk_fb))")]
            out += trio
        elif check.how == "element":
            (p0, p1), root = check.pointer, check.root
            # (into an array, a pointer an int arithmetic may have made: opaque, Check.opaque)
            opq, end = opaque_index("cuda", pointer=True) if check.opaque else ("", "")
            out += [E.insert_before(p0, f"__sk_ptr({opq}", depth),
                    E.insert_after(p1, f"{end}, {root.base}, {root.size}, {code}, __sk_fb)",
                                   depth)]
        else:
            raise ValueError(f"unknown check {check.how!r}")
    return out, indexes


def index_helper(check) -> str:
    """The prelude's check of an index: `__sk_ix32` for an `int`, else `__sk_ix`, templated
    on the index's type; both test the index as the long the address is made of. (__sk_ix32
    once tested an int in 32 bits -- CuPy's bfs_step 1.13x -> 1.08x on an H100 -- but an
    int arithmetic's overflow, which C leaves undefined, let the compiler make the address
    from the operands in 64 bits while the test saw the wrapped value: prelude._index_check.
    A versioned loop's checked copy writes `__sk_ix`: loop_versions.wide.)"""
    return "__sk_ix32" if check.int32 and not check.unsigned else "__sk_ix"


def _extent_text(extent) -> str:
    """An index check's extent in C: a constant, a kernel parameter's element count (the
    prologue's __sk_n_<i>), or the walker's C text."""
    if isinstance(extent, tuple):
        return f"__sk_n_{extent[1]}"
    return str(extent)


def barrier_edits(sites) -> list:
    """The barriers a failing thread must not hang: `__syncthreads*` -> `__sk_sync*`,
    cooperative groups' `block.sync()` -> `__sk_cg_sync(block)` (cuda_calls.py finds them)."""
    out = []
    for site in sites:
        if site[0] == "call":
            _, s, e, new_name = site
            out.append(E.replace(s, e, new_name))
        else:
            _, s, object_end, e, depth = site
            out += [E.insert_before(s, "__sk_cg_sync(", depth), E.replace(object_end, e, ")")]
    return out


def hidden_argument_edits(ps, calls) -> list:
    """The hidden arguments of the calls of the source's own functions (model.HelperCall,
    cuda_calls.py finds them), of the targets that take hidden parameters at all: a device
    function's come first -- the failure buffer, the call chain (call_chains.py), per pointer
    parameter the base and size of the caller's array (nullptr and -1 where the caller cannot
    tell) --, a device-side launch's last (device_launch.hidden_arguments)."""
    out = []
    for call in calls:
        if not call.target.needs_hidden:
            continue
        if call.launch:
            hidden = device_launch.hidden_arguments(
                None if arg is None else (ps.slice(*arg[1]), arg[0].base, arg[0].size)
                for arg in call.args)
            out.append(E.insert_before(call.at, (", " if call.n_args else "") +
                                       ", ".join(hidden), 0))
            continue
        hidden = ["__sk_fb", call_chains.argument(call.chain, in_kernel=call.caller_kernel)]
        for arg in call.args:
            hidden += (["nullptr", "-1LL"] if arg is None else
                       [f"(const volatile void*)({arg[0].base})",
                        f"(long long)({arg[0].size})"])
        out.append(E.insert_after(call.at, ", ".join(hidden) + (", " if call.n_args else ""),
                                  0))
    return out


__all__ = ["check_edits", "barrier_edits", "hidden_argument_edits", "code_text"]
