"""What a C rewrite returns (CUDA C and OpenCL C alike): plain data for the backends.

    rw = cuda.rewrite(...)  /  opencl.rewrite(...)
    rw.source               # what the compiler builds: the prelude, `#line 1`, the user's text
    rw.kernels              # KernelInfo of each kernel, in source order; rw.kernel(name)
    rw.report()             # a safekern.report.CheckReport: every access, assert and division
    rw.failure_sites        # what each failure code means: the backend registers them
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...report import CheckReport, Status


@dataclass
class Rewrite:
    source: str               # what the compiler builds; line numbers are the user's (#line)
    original: str = ""        # the user's source
    filename: str = ""
    checked: bool = True      # False: the user's source (SAFEKERN_CHECKS=0)
    kernels: list = field(default_factory=list)     # kernel_info.KernelInfo, source order
    accesses: list = field(default_factory=list)    # model.Access: every access found
    entries: list = field(default_factory=list)     # report.ReportEntry, in source order
    #: what each failure code of the source means: the backend registers them
    failure_sites: list = field(default_factory=list)
    safety: list = field(default_factory=list)      # safety.SafetySite: asserts, divisions
    barriers: bool = False    # some kernel synchronises its group
    includes: tuple = ()      # (path, sha256) of the real files the source includes
    assumed: tuple = ()       # a launch variant: the failure codes of the checks it leaves out
    state: tuple = ()         # module_state.StateVariable: one copy per loaded module
    #: (function, why): functions built as written, unchecked, because a failing work-item
    #: could not be kept with its group at their barriers (OpenCL: opencl.py); the backend warns
    unchecked_functions: tuple = ()

    def kernel(self, name: str):
        """The kernel called `name` (as written), or None."""
        return next((k for k in self.kernels if k.name == name), None)

    def find_kernels(self, name: str) -> list:
        """Kernels a symbol, a name or a name expression (`ns::axpy<float>`) can mean."""
        base = _strip_template_args(name).strip().lstrip("&").strip()
        return [k for k in self.kernels if name in (k.mangled, k.name, k.qualified)
                or base in (k.name, k.qualified)]

    def report(self) -> CheckReport:
        """Every access, asserts and divisions included, in source order (the same report
        as the other backends')."""
        return CheckReport(self.entries, filename=self.filename, checks=self.checked)

    @property
    def unchecked(self) -> list:
        return [a for a in self.accesses if a.status == Status.UNCHECKED]


def _strip_template_args(name: str) -> str:
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


__all__ = ["Rewrite"]
