"""Plain launches of C kernels: which checks a launch must prove to run the user's own binary.

A launch of a C kernel may run the module compiled from the user's unmodified source (the
backends' plain launch, backends/c_launch.py `PlainLaunch`) when it cannot record a failure:
every check the kernel -- and every function it calls, transitively -- holds is proven, either
statically (the rewrite made none) or by the launch predicates that hold at this launch. The
front ends call `kernel_codes` once per module with, per function, the failure codes of its
checks and whether it holds an assert, and the call graph; each kernel gets

    codes   frozenset of the failure codes a launch must prove (empty: none, the kernel can
            never fail), or None: never plain.

An assert makes a kernel never plain, whatever its status: the user's binary keeps an assert
that SAFEKERN_KERNEL_ASSERTS=0 compiles away, and traps where the checked one records. What a
plain launch must also know -- that nothing is pending on the device (the checked kernel's
prelude would skip), that the module has no state the user wrote into the checked module -- is
the backend's (c_launch.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class OwnChecks:
    """What one function's own body may record (its callees' not included)."""

    codes: set = field(default_factory=set)
    asserts: bool = False

    def add(self, code, status_checked: bool, kind: str = "") -> None:
        if kind == "assert":
            self.asserts = True
        if status_checked and code is not None:
            self.codes.add(int(code))


def kernel_codes(kernels, own: dict, callees) -> dict:
    """kernel -> frozenset of the codes its launches must prove, or None (module doc).
    `own`: function -> OwnChecks (a function missing: nothing of its own); `callees(fn)`: the
    functions it calls that the module defines."""
    out = {}
    for k in kernels:
        codes: set = set()
        never = False
        seen, todo = {id(k)}, [k]
        while todo:
            fn = todo.pop()
            mine = own.get(fn)
            if mine is not None:
                codes |= mine.codes
                never = never or mine.asserts
            for callee in callees(fn):
                if id(callee) not in seen:
                    seen.add(id(callee))
                    todo.append(callee)
        out[k] = None if never else frozenset(codes)
    return out


__all__ = ["OwnChecks", "kernel_codes"]
