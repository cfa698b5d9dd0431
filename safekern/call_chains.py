"""Which call sites a failure inside a device function came through (CUDA C and numba).

A CUDA `__device__` function that checks something gets, besides the failure buffer, a hidden
`unsigned long long __sk_cs` (a numba device function: `_sk_cs`, an int64, written by
frontend/python/call_chain.py): the *call chain*, the last `FRAMES` call sites that led to this
call, innermost in the low bits, `FRAME_BITS` each (a site's frame id is the low bits of its
62-bit site code). A kernel calls with its site's id; a device function calls with
`((__sk_cs << FRAME_BITS) | id) & MASK` (outer frames beyond `FRAMES` drop off). The function's
checks record the failure code XOR the chain, so the failure buffer's layout, the prelude and
the checks' signatures stay as they are, and a check in a kernel records its plain code.

On the host, a code the failure table does not know is one of those: `resolve(value, table)`
tries each registered site's code, and keeps the one whose XOR is a chain of registered call
sites that fit together (the innermost calls the function that holds the site, each next one
calls the function holding the previous one, and a chain that ends early ends in a kernel). A
function is known by its name and its file: a call site's `callee_file`, or (C: one source)
the call's own file.
The call sites are FailureSite(kind="call") records in the same table (the rewrite returns them
among its failure sites, so every backend registers them as it registers the checks).
"""
from __future__ import annotations

FRAME_BITS = 20
FRAMES = 3
FRAME_MASK = (1 << FRAME_BITS) - 1
MASK = (1 << (FRAME_BITS * FRAMES)) - 1


def frame_id(code: int) -> int:
    """The id a call site's code gives it in a chain (never 0: 0 ends a chain)."""
    return (code & FRAME_MASK) or 1


def argument(code: int, *, in_kernel: bool, unsigned: str = "ULL") -> str:
    """The C text a call at site `code` passes as the callee's `__sk_cs` (`unsigned`: the
    suffix of a 64-bit unsigned literal, "UL" in OpenCL C)."""
    fid = frame_id(code)
    if in_kernel:
        return f"{fid:#x}{unsigned}"
    return f"(((__sk_cs << {FRAME_BITS}) | {fid:#x}{unsigned}) & {MASK:#x}{unsigned})"


def check_code(code: int, unsigned: str = "ULL") -> str:
    """The C text of a failure code inside a device function (XOR its call chain)."""
    return f"({code:#x}{unsigned} ^ __sk_cs)"


def extend(chain: int, code: int) -> int:
    """The chain a call at site `code` passes, made in a function called through `chain` (a
    kernel's chain is 0)."""
    return ((chain << FRAME_BITS) | frame_id(code)) & MASK


def _chain(chain: int, function: str, filename: str, by_id: dict, loose: bool = False):
    """The call sites `chain` names, innermost first, if they fit `function` (of file
    `filename`); else None. `loose`: a call site that names no callee file, of another file,
    will do (an OpenCL helper called from another program that was linked with it)."""
    frames = []
    callee = function
    for k in range(FRAMES):
        fid = (chain >> (FRAME_BITS * k)) & FRAME_MASK
        if fid == 0:
            if chain >> (FRAME_BITS * k):
                return None             # a gap: not a chain
            # the chain ended: its outermost call was made in a kernel
            return tuple(frames) if frames and frames[-1].in_kernel else None
        site = next((s for s in by_id.get(fid, ()) if s.callee == callee and (
            (s.callee_file or s.filename) == filename or loose)), None)
        if site is None:
            return None
        frames.append(site)
        callee, filename = site.kernel, site.filename
    return tuple(frames)


def resolve(value: int, sites):
    """(the failing check's FailureSite, its call sites innermost first) for a code read back
    from a failure buffer that no site has itself, or None."""
    sites = list(sites)
    by_id: dict = {}
    for s in sites:
        if s.kind == "call":
            by_id.setdefault(frame_id(s.code), []).append(s)
    if not by_id:
        return None
    for loose in (False, True):
        for s in sites:
            if s.kind == "call":
                continue
            chain = value ^ s.code
            if chain == 0 or chain > MASK:
                continue
            frames = _chain(chain, s.kernel, s.filename, by_id, loose)
            if frames:
                return s, frames
    return None


def truncated(frames) -> bool:
    """The chain lost outer frames (the outermost recorded call was not made in a kernel)."""
    return bool(frames) and not frames[-1].in_kernel


__all__ = ["FRAME_BITS", "FRAMES", "MASK", "frame_id", "extend", "argument", "check_code",
           "resolve", "truncated"]
