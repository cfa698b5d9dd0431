"""The edits that check the CUDA accesses and barriers the walker found (cuda_access.py and
cuda_calls.py analyse, this module rewrites).

Each checked access carries its check in `Access.extra["check"]` (plain offsets and C text):

    ("index", i0, i1, extent, axis, depth)   i -> __sk_ix(i, extent, CODE, axis, __sk_fb):
                                             an array's axis, or a kernel's pointer parameter
                                             against its element count (__sk_n_<i>)
    ("subscript", first, open, close, base, size, depth)
                                             p[i] -> (*__sk_ptr((p) + (i), base, size, CODE,
                                             __sk_fb)): a derived pointer against its root
    ("pointer", p0, p1, base, size, depth)   p -> __sk_ptr(p, base, size, CODE, __sk_fb):
                                             *p, p->f, an atomic's address

CODE is the access's failure code; in a device function it is XORed with the call chain the
function was reached through (call_chains.py), so a failure names its callers.
"""
from __future__ import annotations

from ... import call_chains
from ...report import Status
from . import edits as E
from .loop_versions import IndexCheck


def code_text(code: int, *, kernel: bool) -> str:
    """The C text of a failure code in a kernel (a literal) or a device function."""
    return f"{code:#x}ULL" if kernel else call_chains.check_code(code)


def check_edits(accesses, *, kernel: bool) -> tuple:
    """The edits of every checked access of one function, in the order found, and the index
    checks among them that loop versioning may hoist (loop_versions.IndexCheck; a kernel's:
    in a device function the code depends on the call chain)."""
    out, indexes = [], []
    for a in accesses:
        check = a.extra.get("check")
        if a.status != Status.CHECKED or check is None:
            continue
        code = code_text(a.extra["code"], kernel=kernel)
        how = check[0]
        if how == "index":
            _, i0, i1, extent, axis, depth = check
            pair = (E.insert_before(i0, "__sk_ix(", depth),
                    E.insert_after(i1, f", {extent}, {code}, {axis}, __sk_fb)", depth))
            out += pair
            if kernel:
                indexes.append(IndexCheck(a, extent, code, axis, *pair))
        elif how == "subscript":
            _, first, (o0, o1), (c0, c1), base, size, depth = check
            out += [E.insert_before(first, "(*__sk_ptr((", depth),
                    E.replace(o0, o1, ") + ("),
                    E.replace(c0, c1, f"), {base}, {size}, {code}, __sk_fb))")]
        elif how == "pointer":
            _, p0, p1, base, size, depth = check
            out += [E.insert_before(p0, "__sk_ptr(", depth),
                    E.insert_after(p1, f", {base}, {size}, {code}, __sk_fb)", depth)]
        else:
            raise ValueError(f"unknown check {how!r}")
    return out, indexes


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


def hidden_argument_edits(calls) -> list:
    """The hidden arguments of the calls of the source's own functions (model.HiddenArguments,
    cuda_calls.py finds them), of the targets that take hidden parameters at all."""
    return [(E.insert_before if c.launch else E.insert_after)(c.at, c.text, 0)
            for c in calls if c.target.needs_hidden]


__all__ = ["check_edits", "barrier_edits", "hidden_argument_edits", "code_text"]
