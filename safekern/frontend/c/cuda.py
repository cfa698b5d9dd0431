"""CUDA C++ (CuPy RawKernel / RawModule sources): the dialect and the checking rewrite.

    rw = rewrite(source, filename="gather.cu", options=("-std=c++17",), arch="sm_90")
    rw.source            # compile this with NVRTC; line numbers are the user's (#line)
    rw.kernel("gather")  # parameters, and the hidden arguments the launch must append
    rw.report()          # every access: checked / safe / unchecked (with the reason)

What the rewrite does (each edit stays on its line):

- Every kernel gets hidden parameters after its own: `long long __sk_bytes_<p>` for each pointer
  parameter (the size of what the launch passed, in bytes; -1 when the user marked it
  unchecked) and `long long* __sk_fb`, the device's failure buffer. Its body starts with the
  prelude: return at once (counting the skipped launch) when a failure is pending.
- `__device__` functions get `long long* __sk_fb` and, per pointer parameter, the base address
  and byte size of the array the caller's argument points into; call sites pass them.
- `p[i]` on a kernel parameter that is never reassigned: `p[__sk_ix(i, n, CODE, 0, __sk_fb)]`.
  Arrays of constant size (local, `__shared__`, `__device__`/`__constant__`), per axis, the
  same way with their extents; `extern __shared__` arrays against the launch's dynamic shared
  memory. Other pointers whose origin is visible (`row = a + r * n`, `(float*)smem`, device
  function parameters): `p[i]` becomes `(*__sk_ptr((p) + (i), base, bytes, CODE, __sk_fb))`,
  checked against the array the pointer was derived from; so are `*p`, `p->f` and the address
  arguments of atomics and `__ldg`-style loads. Everything else is reported as unchecked.
- Barriers (`__syncthreads*`, cooperative groups' `thread_block::sync()`) become `__sk_sync*`:
  a failing thread records the failure, raises the block's flag and exits (PTX `exit` releases
  the barriers its block waits at), and at the next barrier the whole block leaves together.
  Barriers that an exiting thread cannot release (grid/cluster sync, named or split barriers,
  `bar` in inline PTX) are rejected at compile time, naming their line.

Where the parts are: cuda_dialect.py (the dialect, the device prelude), cuda_headers.py (what
libclang's parse sees instead of CUDA's headers), cuda_rewrite.py (the module: functions,
signatures, results), walker.py + cuda_access.py + cuda_calls.py (the walk of one function:
its accesses, barriers and calls, as records), cuda_edits.py (those as edits), provenance.py
(what a pointer points into).
"""
from __future__ import annotations

import re

from . import device_launch, macros, parse as C, unused_headers
from .cuda_dialect import (ADDRESS_BUILTINS, ATOMICS, BACKEND, BARRIERS, CHECKS_OFF_PRELUDE,
                           DIALECT, CudaDialect, device_prelude)
from .cuda_headers import PRELUDE_NAME, unknown_function_decl
from .cuda_rewrite import ModuleRewriter
from .kernel_info import KernelInfo
from .param_info import ParamInfo
from .parse_cache import PARSES
from .parse_error import ParseError
from .rewrite_result import Rewrite


# -- parsing -----------------------------------------------------------------------------------

_UNDECLARED = re.compile(r"use of undeclared identifier '(\w+)'")


def parse_cuda(source: str, *, filename: str, options=(), arch="sm_90", include_dirs=()):
    """Parse with the stand-in headers; functions the stand-ins lack are declared generically
    (they matter only as calls), and the parse is repeated."""
    args = DIALECT.parse_args(options, arch)
    headers = list(DIALECT.headers())
    extra: list[str] = []
    text, launched = source, set()      # the text parsed: masked for device-side launches
    for _ in range(4):
        hdrs = headers
        if extra:
            prelude = dict(headers)[PRELUDE_NAME] + "\n".join(extra) + "\n"
            hdrs = [(n, prelude if n == PRELUDE_NAME else t) for n, t in headers]
        ps = C.parse(text, filename=filename, args=args, headers=hdrs,
                     include_dirs=include_dirs)
        more = device_launch.launched_kernels(d.message for d in ps.errors() if d.in_main)
        if more - launched:
            masked = device_launch.mask(source, launched | more)
            if masked is not None:
                launched |= more
                text = masked
                if device_launch.PRELUDE_LINE not in extra:
                    extra.append(device_launch.PRELUDE_LINE)
                continue
        missing = set()
        for d in ps.errors():
            m = _UNDECLARED.search(d.message)
            if m and d.in_main:
                offset = _offset_of(ps, d.lineno, d.col)
                here = ps.next_token(offset) if offset is not None else None
                if here is None or here[0] != offset or here[2] != m.group(1):
                    continue    # e.g. inside a macro expansion: a genuine error
                tok = ps.next_token(here[1])
                if tok is not None and tok[2] == "(":
                    missing.add(m.group(1))
        new = sorted(n for n in missing if unknown_function_decl(n) not in extra)
        if not new:
            break
        extra += [unknown_function_decl(n) for n in new]
    if unused_headers.header_errors(ps):    # CCCL headers the code may not need at all
        blank = unused_headers.mask(text)
        if blank is not None:
            trial = C.parse(blank, filename=filename, args=args, headers=hdrs,
                            include_dirs=include_dirs)
            if not any(d.in_main for d in trial.errors()):
                ps, text = trial, blank
    if text is not source:      # offsets are the user's: edits and messages use the source
        ps.source = ps.user_text = source
        ps.data = source.encode("utf-8")
        ps._lines = source.split("\n")
    main_errors = [d for d in ps.errors() if d.in_main]
    if main_errors:
        raise ParseError.of(ps, main_errors)
    return ps


def _offset_of(ps, lineno, col):
    if lineno is None:
        return None
    start = ps._line_starts[lineno - 1]
    line = ps.source_line(lineno)
    return start + len(line[:col].encode("utf-8"))


# -- the rewrite -------------------------------------------------------------------------------

def rewrite(source: str, *, filename: str = "kernel.cu", options=(), arch="sm_90",
            include_dirs=(), checks: bool = True, kernel_asserts: bool = True,
            eliminate: bool = True, launch_predicates: bool = False,
            assume=frozenset()) -> Rewrite:
    """Parse `source`, find every access, and return the checked source (or, with
    `checks=False`, the user's source with the kernel facts the launch needs).
    `kernel_asserts=False` compiles asserts away (SAFEKERN_KERNEL_ASSERTS=0);
    `eliminate=False` checks accesses proven in bounds too (SAFEKERN_ELIMINATE=0).
    `launch_predicates`: each kernel's `launch` holds the predicates launches may prove
    (launch.py); `assume`: the failure codes of checks a launch variant leaves out."""
    # the builds of one module (checked, launch variants, every check kept) share a parse
    ps = PARSES.get(("cuda", source, filename, options, arch, include_dirs, checks),
                    lambda: _parse(source, filename, options, arch, include_dirs, checks))
    return ModuleRewriter(ps, checks=checks, kernel_asserts=kernel_asserts,
                          options=options, eliminate=eliminate,
                          launch_predicates=launch_predicates, assume=assume).run()


def _parse(source, filename, options, arch, include_dirs, checks: bool):
    """The parse the rewrite reads: with checks, the source's own macros expanded in function
    bodies (what they hold is checked where they are used; macros.py)."""
    ps = parse_cuda(source, filename=filename, options=options, arch=arch,
                    include_dirs=include_dirs)
    if checks:
        ps = macros.with_expansions(ps, lambda text: parse_cuda(
            text, filename=filename, options=options, arch=arch, include_dirs=include_dirs))
    return ps


__all__ = ["CudaDialect", "DIALECT", "rewrite", "parse_cuda", "Rewrite", "KernelInfo",
           "ParamInfo", "ParseError", "device_prelude", "ATOMICS", "ADDRESS_BUILTINS", "BARRIERS",
           "BACKEND", "CHECKS_OFF_PRELUDE"]
