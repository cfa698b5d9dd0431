"""CUDA C: CCCL headers (CUB, Thrust, libcu++) the user's code does not use (issue 23).

CCCL does not parse under libclang with the front end's stand-in CUDA headers (clang's CUDA
mode, not NVRTC's: CCCL then includes the host C++ library, which the stand-ins shadow), and a
header whose errors leave a `namespace cuda { namespace std {` open puts the rest of the user's
file inside it, hiding the kernels (CuPy's `test_jitify1` prepends an unused
`#include <cub/block/block_reduce.cuh>`). When the parse has such header errors, the source is
parsed once more with its CCCL `#include` lines blanked, length for length; that parse is taken
only when it has no error in the user's file, i.e. the code names nothing from those headers
(a use would be an undeclared name there). The checked source keeps the includes: the edits
apply to the user's text, and the compiler sees the real headers.
"""
from __future__ import annotations

import re

_CCCL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:cub|thrust|cuda)/[^>"\n]*[>"]',
                           re.M)


def header_errors(ps) -> bool:
    return any(not d.in_main for d in ps.errors())


def mask(text: str) -> str | None:
    """`text` with each CCCL #include blanked (same length); None when it has none."""
    hits = list(_CCCL_INCLUDE.finditer(text))
    if not hits:
        return None
    out = list(text)
    for m in hits:
        out[m.start():m.end()] = " " * (m.end() - m.start())
    return "".join(out)


__all__ = ["header_errors", "mask"]
