"""The C corpora: real library sources, rewritten and compiled (issue 30).

The sources are other projects' code, so they are not committed: the tools make them at run
time into $SAFEKERN_C_CORPUS (default <repo>/.corpus, git-ignored) -- cupyx's with
tools/extract_cupyx_corpus.py from a CuPy checkout, PyOpenCL's with
tools/capture_pyopencl_corpus.py from the installed pyopencl; tests/frontend/
c_corpus_manifest.json says what they are (project, commit/version, paths, licence).

    results = check_cupyx(names=None)       # NVRTC, no GPU: [CorpusResult]
    results = check_pyopencl(names=None)    # PoCL builds
    summary(results)                        # one line per outcome, and the checked share

A source whose original does not compile here is `original-fails` (not the rewrite's fault);
one the rewrite refuses with an UnsupportedError is `refused` (its message says which limit);
one whose rewrite the compiler rejects is `broken` -- the bug the corpus exists to catch.
Used by tests/frontend/test_c_corpus.py (a sample, under a time budget) and
tools/c_corpus_check.py (everything).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field

from safekern.errors import CompilationError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.environ.get("SAFEKERN_C_CORPUS") or os.path.join(ROOT, ".corpus")
CUPYX = os.path.join(CORPUS, "cupyx")
PYOPENCL = os.path.join(CORPUS, "pyopencl")


@dataclass
class CorpusResult:
    name: str
    outcome: str            # ok | refused | broken | internal | original-fails
    message: str = ""
    statuses: Counter = field(default_factory=Counter)   # report status -> access count


def present(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "index.json"))


def index(directory: str) -> dict:
    with open(os.path.join(directory, "index.json")) as f:
        return json.load(f)


def _read(directory, name) -> str:
    with open(os.path.join(directory, name)) as f:
        return f.read()


def _first_error(text: str) -> str:
    lines = [ln for ln in str(text).splitlines() if "error" in ln.lower()]
    return (lines[0] if lines else str(text).splitlines()[0] if text else "").strip()[:300]


def _refusal(name, err) -> CorpusResult:
    from safekern.errors import InternalError

    where = f" ({err.filename}:{err.lineno})" if getattr(err, "lineno", None) else ""
    return CorpusResult(name, "internal" if isinstance(err, InternalError) else "refused",
                        str(getattr(err, "problem", err)).splitlines()[0][:300] + where)


def _statuses(report) -> Counter:
    """Access sites (not asserts or divisions) by status."""
    from safekern.report import ACCESS_KINDS

    return Counter(e.status.value for e in report if e.kind in ACCESS_KINDS)


# -- cupyx: CUDA C through NVRTC ----------------------------------------------------------------

def check_cupyx(names=None, *, arch="sm_90") -> list[CorpusResult]:
    from safekern.backends.cupy import nvrtc
    from safekern.frontend.c import cuda

    include = os.path.join(CUPYX, "include")
    dirs = [include] + nvrtc.include_dirs()
    out = []
    for name, meta in sorted(index(CUPYX).items()):
        if names is not None and name not in names:
            continue
        source = _read(CUPYX, name)
        options = tuple(meta["options"])
        if not any("-std=" in o for o in options):
            options += ("--std=c++17",)
        nvrtc_opts = options + tuple(f"-I{d}" for d in dirs)
        exprs = tuple(meta["name_expressions"])

        def compile_(text):
            nvrtc.compile_program(text, filename=name, arch=arch, options=nvrtc_opts,
                                  name_expressions=exprs, cubin=False)
        try:
            compile_(source)
        except nvrtc.NvrtcError as err:
            out.append(CorpusResult(name, "original-fails", _first_error(err.log or err)))
            continue
        try:
            rw = cuda.rewrite(source, filename=name, options=options, arch=arch,
                              include_dirs=dirs)
        except CompilationError as err:
            out.append(_refusal(name, err))
            continue
        statuses = _statuses(rw.report())
        try:
            compile_(rw.source)
        except nvrtc.NvrtcError as err:
            out.append(CorpusResult(name, "broken", _first_error(err.log or err), statuses))
            continue
        out.append(CorpusResult(name, "ok", "", statuses))
    return out


# -- PyOpenCL: OpenCL C on PoCL -----------------------------------------------------------------

def check_pyopencl(names=None) -> list[CorpusResult]:
    import pyopencl as cl

    from safekern.backends.opencl.build import _driver_options, device_caps
    from safekern.frontend.c import opencl

    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    int64, little = device_caps(ctx.devices)
    out = []
    for name, meta in sorted(index(PYOPENCL).items()):
        if names is not None and name not in names:
            continue
        source = _read(PYOPENCL, name)
        opts_bytes, parse_options = _driver_options(ctx, list(meta["options"]))

        def build(text):
            prg = cl.Program(ctx, text)
            try:
                prg.build(opts_bytes.decode())
                return None
            except cl.Error:
                return _first_error(prg.get_build_info(ctx.devices[0],
                                                       cl.program_build_info.LOG))
        err = build(source)
        if err is not None:
            out.append(CorpusResult(name, "original-fails", err))
            continue
        try:
            rw = opencl.rewrite(source, filename=name, options=parse_options,
                                int64_atomics=int64, little_endian=little)
        except CompilationError as err:
            out.append(_refusal(name, err))
            continue
        statuses = _statuses(rw.report())
        err = build(rw.source)
        out.append(CorpusResult(name, "broken" if err else "ok", err or "", statuses))
    return out


def summary(results) -> str:
    by = Counter(r.outcome for r in results)
    st = Counter()
    for r in results:
        st.update(r.statuses)
    total = sum(st.values())
    unchecked = st.get("unchecked", 0)
    lines = [", ".join(f"{k}: {v}" for k, v in sorted(by.items()))]
    if total:
        lines.append(f"access sites: {total}, checked or proven: {total - unchecked} "
                     f"({100 * (total - unchecked) / total:.1f}%), unchecked: {unchecked}")
    for r in results:
        if r.outcome in ("refused", "broken", "internal"):
            lines.append(f"  {r.outcome:8} {r.name}: {r.message}")
    return "\n".join(lines)
