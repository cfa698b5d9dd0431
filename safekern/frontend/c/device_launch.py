"""CUDA C: kernels launched from device code (dynamic parallelism; issue 23).

libclang 18 refuses `child<<<grid, block>>>(args)` inside a kernel ("reference to __global__
function 'child' in __global__ function"). For the parse only, the source is masked length for
length, so that every offset of the parse is one of the user's source: each launch
configuration `<<<grid, block>>>` becomes the comment `/*<grid, block>*/`, and the `__global__`
of each kernel launched from device code becomes `__sk_dpk__`, which the prelude line below
defines as `__device__` annotated 'safekern_global' -- still a kernel for the rewrite
(`marked`). The launch then parses as a call, which cuda_calls.py rewrites as a launch: the
child's hidden arguments appended (`hidden_arguments`), the launch configuration kept.
"""
from __future__ import annotations

import re

from .parse import kids

MARK = "safekern_global"
PRELUDE_LINE = f'#define __sk_dpk__ __device__ __attribute__((annotate("{MARK}")))'
_REFUSED = re.compile(r"reference to __global__ function '([A-Za-z_]\w*)' in "
                      r"__(?:global|device|host__ __device)__ function")
_SKIP = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def launched_kernels(messages) -> set[str]:
    """The kernels libclang refused to see launched from device code."""
    return {m.group(1) for m in map(_REFUSED.search, messages) if m}


def mask(source: str, kernels: set[str]) -> str | None:
    """The source as the parse sees it (same length, same lines); None when a launch
    configuration cannot be masked (one holding `*/`, or no closing `>>>`)."""
    skip = [(m.start(), m.end()) for m in _SKIP.finditer(source)]

    def code(at: int) -> bool:
        return not any(s <= at < e for s, e in skip)

    out = list(source)
    at = 0
    while True:
        start = source.find("<<<", at)
        if start < 0:
            break
        if not code(start):
            at = start + 3
            continue
        end = source.find(">>>", start + 3)
        if end < 0 or "*/" in source[start:end]:
            return None
        out[start:start + 3] = "/*<"
        out[end:end + 3] = ">*/"
        at = end + 3
    for name in kernels:
        pattern = re.compile(r"\b__global__\b(?=[^;{}()]*\b" + re.escape(name) + r"\s*\()")
        for m in pattern.finditer(source):
            if code(m.start()):
                out[m.start():m.end()] = "__sk_dpk__"
    return "".join(out)


def marked(cursor, annotate_kind) -> bool:
    """A kernel the mask made `__device__` for the parse."""
    return any(ch.kind == annotate_kind and ch.spelling == MARK for ch in kids(cursor))


def hidden_arguments(pointer_args) -> list[str]:
    """What a device-side launch appends, in the order of the child's hidden parameters
    (cuda_signatures.py): for each pointer parameter the bytes its argument may reach in the
    parent's array -- from `(argument, base, bytes)` of the parent, or None when the parent
    does not know them (-1: unchecked) --, then the parent's failure buffer. The bytes are 0
    for an argument outside the parent's array (every access then fails), -1 when the
    parent's own array is unchecked."""
    out = []
    for arg in pointer_args:
        if arg is None:
            out.append("-1LL")
            continue
        value, base, size = arg
        out.append("[](const volatile char* __p, const volatile char* __b, long long __n) "
                   "-> long long { long long __o = __p - __b; "
                   "return __n < 0 ? -1LL : (__o < 0 || __o > __n) ? 0LL : __n - __o; }"
                   f"((const volatile char*)({value}), (const volatile char*)({base}), "
                   f"(long long)({size}))")
    return out + ["__sk_fb"]


__all__ = ["launched_kernels", "mask", "marked", "hidden_arguments", "PRELUDE_LINE", "MARK"]
