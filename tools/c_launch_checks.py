"""Which checks of the C benchmark kernels the launch actually run still makes (no device).

    python tools/c_launch_checks.py [--quick] [--languages cuda,opencl] [--cases a,b]
                                    [--sites] [--ptx]

For each kernel of the C subsets (benchmarks/cuda_c_cases.py, benchmarks/opencl_cases.py) at
the benchmark's size (`--quick`: the CI size), the rewrite with launch predicates
(frontend/c/launch.py) and the launch-time mask (backends/c_launch.py), evaluated on the
launches of one benchmark step -- the same scalars, byte sizes and geometry the backends pass.
Per kernel: the checks of the rewrite (checked, proven at some launch, eliminated), the checks
the launch still makes (`kept`), and whether it runs the user's own binary (`plain`). `--sites`
lists each kept check with why no launch fact proves it. `--ptx` (CUDA): NVRTC's PTX
instruction count of the variant launched against the unchecked kernel.
This is a CPU proxy of the checked/unchecked cost, not a timing.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.getcwd())

from benchmarks import c_cases, cases, cuda_c_cases, opencl_cases  # noqa: E402
from benchmarks.cuda_c_cases import _address as c_cases_address  # noqa: E402
from safekern.backends.c_launch import compile_mask, cuda_geometry, opencl_geometry  # noqa: E402
from safekern.backends.cupy.struct_args import field_extents  # noqa: E402
from safekern.frontend.c import cuda, opencl  # noqa: E402
from safekern.report import Status  # noqa: E402


def _launches(lang, case):
    """(kernel, args, nb, g, l) of one step, as the backend sees them."""
    if lang == "cuda":
        adapted = c_cases.adapt(case, cuda_c_cases.CUDA_SOURCES, ".cu",
                                args={"bfs_step": cuda_c_cases._bfs_graph})
    else:
        adapted = c_cases.adapt(case, opencl_cases.OPENCL_SOURCES, ".cl")
    out = []
    for name, grid, block, args in adapted.plan(case.arrays):
        nb = [np.int64(a.nbytes) for a in args if isinstance(a, np.ndarray)]
        if lang == "cuda":
            g, l = cuda_geometry(grid, block)
        else:
            gd, ld = cuda_c_cases._dims(grid), cuda_c_cases._dims(block)
            g, l = opencl_geometry(tuple(x * y for x, y in zip(gd, ld)), ld)
        out.append((name, list(args), nb, g, l))
    return adapted.kernels[out[0][0]], out


def _rewrite(lang, src, assume=frozenset(), filename="bench"):
    if lang == "cuda":
        return cuda.rewrite(src, filename=filename + ".cu", launch_predicates=True,
                            assume=assume)
    return opencl.rewrite(src, filename=filename + ".cl", launch_predicates=True,
                          assume=assume)


def probe(lang, name, quick, show_sites=False, ptx=False):
    case = cases.build(name, quick)
    src, launches = _launches(lang, case)
    rw = _rewrite(lang, src)
    rows = []
    for kname, args, nb, g, l in dict((x[0], x) for x in launches).values():
        info = rw.kernel(kname)
        if getattr(info, "fields", ()):        # struct pointer fields: the arrays they hold
            nb = nb + field_extents(args, info.fields, _allocations(case))[0]
        entries = [e for e in rw.report() if e.function == kname]
        preds = info.launch
        proven = frozenset()
        if preds:
            mask, codes = compile_mask(preds, python_int=(lang == "cuda"))
            m = mask(args, nb, g, l)
            proven = frozenset().union(*(c for i, c in enumerate(codes) if m >> i & 1))
        checked = [e for e in entries if e.status in (Status.CHECKED, Status.PROVEN_AT_LAUNCH)]
        kept = [e for e in checked if e.code not in proven]
        codes = info.codes
        plain = codes is not None and codes <= proven
        rows.append((kname, len(checked), sum(e.status is Status.PROVEN_AT_LAUNCH
                                              for e in entries),
                     sum(e.status is Status.ELIMINATED for e in entries), len(kept), plain))
        line = (f"{lang:6s} {name:15s} {kname:17s} checks {len(checked):3d}  "
                f"predicates {rows[-1][2]:3d}  elim {rows[-1][3]:2d}  kept {len(kept):3d}  "
                f"{'plain' if plain else 'checked variant'}")
        if ptx and lang == "cuda":
            line += "  " + _ptx_counts(src, kname, proven, plain, rw)
        print(line, flush=True)
        if show_sites:
            for e in kept:
                why = "no predicate" if e.status is Status.CHECKED else \
                    f"predicate fails: {e.predicate}"
                print(f"    line {e.lineno:3d} {e.text:40s} {why}"
                      + (f" [{e.reason}]" if e.status is Status.CHECKED else ""))
    return rows


def _allocations(case):
    """struct_args.allocation for the case's NumPy arrays (the addresses the struct holds
    here): each its own allocation of exactly its bytes."""
    spans = {c_cases_address(a): a.nbytes for a in case.arrays.values()}

    def lookup(address):
        for base, size in spans.items():
            if base <= address < base + max(size, 1):
                return base, size
        return "not an array of the case"
    return lookup


def _ptx_counts(src, kname, proven, plain, rw):
    from safekern.backends.cupy import program as P  # noqa: F401  (NVRTC through cuda-bindings)

    def count(text):
        body = _ptx(text, kname)
        return sum(1 for ln in body.splitlines()
                   if ln.strip() and not ln.strip().startswith(("//", ".", "{", "}", "$"))
                   and not ln.strip().endswith(":"))
    user = count(src)
    run = user if plain else count(_rewrite("cuda", src, assume=proven).source)
    return f"ptx {run} vs {user}"


def nvrtc_output(source, cubin=False) -> bytes:
    """NVRTC's PTX (or, `cubin`, its sm_90 cubin) of a CUDA C source, as bytes."""
    from cuda.bindings import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"k.cu", 0, [], [])
    arch = b"--gpu-architecture=sm_90" if cubin else b"--gpu-architecture=compute_90"
    opts = [arch, b"-default-device"]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode(errors="replace"))
    get_size, get = ((nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if cubin else
                     (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX))
    _, size = get_size(prog)
    buf = b" " * size
    get(prog, buf)
    return buf


def _ptx(source, name):
    text = nvrtc_output(source).decode(errors="replace")
    start = text.find(f".entry {name}(")
    if start < 0:
        start = text.find(f".entry _Z")
    end = text.find(".entry", start + 1)
    return text[start:end if end > 0 else len(text)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--languages", default="cuda,opencl")
    ap.add_argument("--cases", default=",".join(c_cases.NAMES))
    ap.add_argument("--sites", action="store_true")
    ap.add_argument("--ptx", action="store_true")
    a = ap.parse_args(argv)
    total = {}
    for lang in a.languages.split(","):
        for name in a.cases.split(","):
            for row in probe(lang, name, a.quick, a.sites, a.ptx):
                total.setdefault(lang, [0, 0])
                total[lang][0] += row[4]
                total[lang][1] += row[5]
    for lang, (kept, plain) in total.items():
        print(f"{lang}: {kept} checks kept at the benchmark's launches, {plain} kernels plain")


if __name__ == "__main__":
    main()
