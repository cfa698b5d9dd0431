"""The code a checked CUDA C benchmark launch runs, next to the user's (no device).

    python tools/c_kernel_code.py CASE [--kernel NAME] [--quick] [--source] [--sass PATH]
                                       [--known]

For one case of the CUDA C subset (benchmarks/cuda_c_cases.py) at the benchmark's size, the
kernel the launch of one benchmark step actually runs -- the user's (plain), or the rewrite
without the checks its launch predicates prove (the launch variant) -- compiled by NVRTC for
sm_90: PTX instruction counts of the kernel and of each loop body (the lines between a
`$L__BB` label and the branch back to it), and with `--sass` (an nvdisasm executable, e.g. from
the nvidia-cuda-nvdisasm wheel) the SASS of the cubin, counted the same way. `--source` prints
the launched kernel's source. A CPU proxy of the checked/unchecked cost, not a timing.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.getcwd())

from tools.c_launch_checks import (_allocations, _launches, _rewrite,  # noqa: E402
                                   nvrtc_output as _nvrtc)
from benchmarks import cases  # noqa: E402
from safekern.backends.c_launch import compile_mask  # noqa: E402
from safekern.backends.cupy.struct_args import field_extents  # noqa: E402


def launched_source(name, quick, kernel=None):
    """(kernel name, the user's source, the source the launch runs, 'plain' or 'variant')."""
    case = cases.build(name, quick)
    src, launches = _launches("cuda", case)
    rw = _rewrite("cuda", src)
    kname, args, nb, g, l = next(x for x in launches if kernel in (None, x[0]))
    info = rw.kernel(kname)
    proven = frozenset()
    if getattr(info, "fields", ()):        # struct pointer fields: the arrays they hold
        nb = nb + field_extents(args, info.fields, _allocations(case))[0]
    if info.launch:
        mask, codes = compile_mask(info.launch, python_int=True)
        m = mask(args, nb, g, l)
        proven = frozenset().union(*(c for i, c in enumerate(codes) if m >> i & 1))
    if info.codes is not None and info.codes <= proven:
        return kname, src, src, "plain"
    return kname, src, _rewrite("cuda", src, assume=proven).source, "variant"


def assume_known(source, kname):
    """`source` with every hidden size of kernel `kname` assumed non-negative (known, as at the
    benchmark's launch): NVRTC then compiles the loop the launch takes, not one unswitched copy
    per size that may be unknown (-1)."""
    at = source.find(f" {kname}(")
    brace = source.find("{", at)
    names = re.findall(r"long long (__sk_f?bytes_\w+)", source[at:brace])
    if not names:
        return source
    known = " ".join(f"__builtin_assume({n} >= 0);" for n in names)
    return source[:brace + 1] + known + source[brace + 1:]


def _entry(text, kname):
    start = text.find(f".entry {kname}(")
    if start < 0:
        start = text.find(f"Function : {kname}")
    return text[start:] if start >= 0 else text


def ptx(source, kname):
    return _entry(_nvrtc(source, cubin=False).decode(errors="replace"), kname)


def sass(source, kname, nvdisasm):
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(_nvrtc(source, cubin=True))
        f.flush()
        out = subprocess.run([nvdisasm, "-c", "-hex", f.name] if False else
                             [nvdisasm, "-c", f.name], capture_output=True, text=True,
                             check=True).stdout
    return out


_PTX_LABEL = re.compile(r"^\s*(\$L__BB\d+_\d+):")
_SASS_LABEL = re.compile(r"^\s*\.?(L_x_\d+):")


def _instructions(lines, sass_text):
    out = []
    for ln in lines:
        s = ln.strip()
        if sass_text:
            m = re.search(r"/\*[0-9a-f]{4,}\*/\s+([^;]+);", s)
            if m:
                out.append(m.group(1).strip())
        elif s and not s.startswith(("//", ".", "{", "}", "$")) and not s.endswith(":"):
            out.append(s.rstrip(";"))
    return out


def loops(text, sass_text=False):
    """[(label, instructions of the loop body)] for each backward branch to a label."""
    lines = text.splitlines()
    label_re = _SASS_LABEL if sass_text else _PTX_LABEL
    where = {}
    found = []
    for i, ln in enumerate(lines):
        m = label_re.match(ln)
        if m:
            where[m.group(1)] = i
        b = re.search(r"\bBRA\b.*?`?\(?\.?(L_x_\d+)\)?" if sass_text else
                      r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+)", ln)
        if b and b.group(1) in where:
            found.append((b.group(1), _instructions(lines[where[b.group(1)]:i + 1],
                                                    sass_text)))
    return found


def report(label, text, sass_text=False, show=False):
    total = len(_instructions(text.splitlines(), sass_text))
    body = "; ".join(f"loop {lab}: {len(ins)}" for lab, ins in loops(text, sass_text))
    print(f"  {label}: {total} instructions; {body or 'no loop'}")
    if show:
        for lab, ins in loops(text, sass_text):
            print(f"    -- {lab}")
            for x in ins:
                print(f"       {x}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case")
    ap.add_argument("--kernel")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--source", action="store_true")
    ap.add_argument("--loops", action="store_true", help="list each loop's instructions")
    ap.add_argument("--sass", help="an nvdisasm executable")
    ap.add_argument("--known", action="store_true",
                    help="compile with the hidden sizes assumed known (>= 0): the loop the "
                         "launch takes, without the copies for unknown sizes")
    a = ap.parse_args(argv)
    kname, user, run, how = launched_source(a.case, a.quick, a.kernel)
    if a.known:
        run = assume_known(run, kname)
    print(f"{a.case}: kernel {kname}, the launch runs the {how} kernel")
    if a.source:
        print(run)
    report("PTX, user", ptx(user, kname), show=a.loops)
    report(f"PTX, {how}", ptx(run, kname), show=a.loops)
    if a.sass:
        report("SASS, user", _entry(sass(user, kname, a.sass), kname), True, a.loops)
        report(f"SASS, {how}", _entry(sass(run, kname, a.sass), kname), True, a.loops)


if __name__ == "__main__":
    main()
