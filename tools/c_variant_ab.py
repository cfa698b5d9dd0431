"""GPU A/B of check designs for CUDA C's spmv_csr and bfs_step, in plain CuPy (issue 25).

    python tools/c_variant_ab.py [--rounds 7] [--launches 20] [--cases spmv_csr,bfs_step]
                                 [--out ab.md] [--no-wrapper]          # on a GPU, CuPy
    python tools/c_variant_ab.py --compile-only [--quick]              # no GPU: NVRTC

For each case at the benchmark's size and data (benchmarks/cases.py, the CUDA C sources and
argument adapters of benchmarks/cuda_c_cases.py), several full kernel texts are compiled by
plain `cupy.RawKernel` (no safekern wrapper: the host side is the same for all) and timed with
CUDA events, `--launches` launches per sample, the variants interleaved round-robin (the order
rotated each round) over `--rounds` rounds; the table gives each variant's median per launch,
its ratio to the user's kernel (plain) and to what safekern launches today (current), its
registers (CuPy's attributes), and whether its output equals plain's bit for bit and its failure
buffer stayed zero. `current` is the text safekern compiles for this launch: the rewrite of
safekern.cupy's own Program without the checks the launch's predicates prove (the mask computed
from the launch's real arguments, byte sizes and struct field extents, as
backends/cupy/api.py does); the hidden arguments are passed as that launch passes them (each
pointer's bytes, the struct fields' extents, a zeroed failure buffer of its own). The other
variants are edits of `current` (each asserted to apply, so a changed rewrite fails here, not
silently); `--no-wrapper` leaves out the extra row timing safekern.cupy.RawKernel itself.
Variants marked unsound are measurements only (why: VARIANTS' notes). `--compile-only`
compiles every text with NVRTC (safekern's binding, CuPy's default options) for sm_90 and lists
registers, spills and `call`s: CPU proxies, which were wrong about GPU speed before.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import c_cases, cases, cuda_c_cases  # noqa: E402
from safekern.backends.c_launch import compile_mask  # noqa: E402
from safekern.backends.cupy.struct_args import field_extents  # noqa: E402

CASES = ("spmv_csr", "bfs_step")
_SPLIT = '#line 1 "'


# -- edits of the launched text -------------------------------------------------------------

def _sub(text, pattern, repl, what, count=0, literal=False):
    """`text` with `pattern` replaced; it must match (else the rewrite changed: say so)."""
    if literal:
        n = text.count(pattern)
        out = text.replace(pattern, repl)
    else:
        out, n = re.subn(pattern, repl, text, count=count, flags=re.S)
    if n == 0:
        raise SystemExit(f"c_variant_ab: cannot make variant '{what}': {pattern!r} is not in "
                         "the launched source (the rewrite changed; update this tool)")
    return out


def _parts(text):
    at = text.index(_SPLIT)
    return text[:at], text[at:]


def _flagging(prelude):
    """`__sk_ixf`/`__sk_ptrf`: __sk_ix/__sk_ptr (copied from the prelude) whose failure is one
    inlined atomicCAS of the code and a PTX exit -- no call, no record of index or thread."""
    out = []
    for name in ("__sk_ix", "__sk_ptr"):
        m = re.search(r"template <typename \w+>\nstatic __device__ __forceinline__ [^\n]*? "
                      + name + r"\(.*?\n}\n", prelude, re.S)
        if m is None:
            raise SystemExit(f"c_variant_ab: no {name} in the prelude (update this tool)")
        body = m.group(0).replace(f" {name}(", f" {name}f(", 1)
        out.append(_sub(body, r"__sk_fail\(fb, code,[^;]*\);",
                        "{ atomicCAS((unsigned long long*)fb, 0ULL, code); "
                        "asm volatile(\"exit;\"); __builtin_unreachable(); }", name))
    return "\n".join(out) + "\n"


_HELPERS = r"""
static __device__ __forceinline__ unsigned int __sk_dcb32(unsigned int u, unsigned int last,
                                                          unsigned int* bad) {
  *bad |= u > last;
  return u < last ? u : last;
}
template <typename I>
static __device__ __forceinline__ unsigned int __sk_ix32c(I i, long long n,
                                                          unsigned long long code, int axis,
                                                          long long* fb) {
  unsigned int u = (unsigned int)i;
  if (__builtin_expect(u >= (unsigned int)(n < 2147483648LL ? n : 2147483648LL), 0) && n >= 0)
    __sk_fail(fb, code, (long long)i, n, axis, 0);
  return u;
}
template <typename I>
static __device__ __forceinline__ long long __sk_ixo(I i, bool ok, long long n,
                                                     unsigned long long code, int axis,
                                                     long long* fb) {
  return __builtin_expect(ok, 1) ? (long long)i : __sk_ix(i, n, code, axis, fb);
}
"""


def _fail_inline(prelude, kernel):
    """`__sk_fail` __forceinline__ instead of __noinline__ (variant and note)."""
    noinline = "static __device__ __noinline__ void __sk_fail("
    return (_sub(prelude, noinline, noinline.replace("__noinline__", "__forceinline__"),
                 "fail-inline", literal=True) + kernel,
            "__sk_fail __forceinline__: no call ABI (registers, occupancy)")


def _common(cur):
    """Variants of both kernels: how the cold path is compiled."""
    prelude, kernel = _parts(cur)
    out = {"fail-inline": _fail_inline(prelude, kernel)}
    flag_kernel = _sub(kernel, r"\b__sk_ix\(", "__sk_ixf(", "fail-flag")
    flag_kernel = re.sub(r"\b__sk_ptr\(", "__sk_ptrf(", flag_kernel)
    out["fail-flag"] = (prelude + _flagging(prelude) + flag_kernel,
                        "a failing check: inlined atomicCAS of the code + PTX exit, no call, "
                        "no record (index, size, thread lost)")
    return prelude + _HELPERS, kernel, out


def spmv_variants(cur):
    prelude, kernel, out = _common(cur)
    m = re.search(r"long long __sk_lo(\d+_\d+) =", kernel)
    if m is None:
        raise SystemExit("c_variant_ab: spmv_csr's loop is not versioned (update this tool)")
    s = m.group(1)
    dl, dq, vr, sv = f"__sk_dl{s}_0", f"__sk_dq{s}_0", f"__sk_vr{s}", f"__sk_sv{s}_0"
    block = (r"if \(!" + vr + r"\) \{ decltype\((?P<var>\w+)\) " + sv + r" = (?P=var); "
             r"(?P<scan>for .*?) (?P=var) = " + sv + "; " + vr + " = " + dq + " > " + dl
             + r"; \} if \(!" + vr + r"\) \{ (?P<work>for .*?) \} else (?P<checked>for )")
    if re.search(block, kernel, re.S) is None:
        raise SystemExit("c_variant_ab: spmv_csr's scan/work/checked loops changed shape")

    def one_pass(clamp):
        def repl(mm):
            var, work = mm.group("var"), mm.group("work")
            work = clamp(work)
            return (f"if (!{vr}) {{ decltype({var}) {sv} = {var}; unsigned int __sk_bad = 0; "
                    f"{work} if (__sk_bad | ({dq} > {dl})) {{ {var} = {sv}; {vr} = true; }} }}"
                    f" if ({vr}) for ")
        return _sub(kernel, block, repl, "one-pass")

    work_bad = lambda w: _sub(w, r"__sk_dc32\( (.*?) , " + dl + r"\)",
                              r"__sk_dcb32( \1 , " + dl + ", &__sk_bad)", "one-pass-or")
    work_max = lambda w: _sub(w, r"__sk_dc32\( (.*?) , " + dl + r"\)",
                              r"__sk_dm32( \1 , " + dl + ", &" + dq + ")", "one-pass-max")
    out["one-pass-or"] = (prelude + one_pass(work_bad),
                          "(c) no scan: the work copy clamps and ORs bad |= u > last; bad: "
                          "restore, checked loop")
    out["one-pass-max"] = (prelude + one_pass(work_max),
                           "no scan: the work copy keeps the running max (the 1.85x design "
                           "of before), for reference")
    out["scan+unclamped"] = (
        prelude + _sub(kernel, r"__sk_dc32\( (.*?) , " + dl + r"\)", r"\1", "scan+unclamped"),
        "(d) UNSOUND: the work copy reads x[indices[k]] as the scan saw it; another thread "
        "(or a concurrent kernel) may change indices between scan and work")
    no_scan = _sub(kernel, r"if \(!" + vr + r"\) \{ decltype\(\w+\) " + sv + ".*?" + vr
                   + " = " + dq + " > " + dl + r"; \} ", "", "clamp-only", count=1)
    out["clamp-only"] = (prelude + no_scan,
                         "UNSOUND: no scan, the clamped work copy only: the clamp's own cost")
    out["fallback-ix32"] = (prelude + re.sub(
        r"__sk_ix\((\w+(?: \[ \w+ \])?|indices\[[^\]]*\]), (__sk_n_\d+), (0x[0-9a-f]+ULL), (\d+), __sk_fb\)",
        r"__sk_ix32c(\1, \2, \3, \4, __sk_fb)", kernel),
        "the checked loop (never run here) by 32-bit compares: does its code alone cost?")
    out["checked-only"] = (prelude + _sub(kernel, f"bool {vr} = !(", f"bool {vr} = true || !(",
                                          "checked-only", literal=True),
                           "no versioning: the checked loop (__sk_ix per access) always")
    wide = _sub(kernel, r"unsigned int " + dl + r" = \(unsigned int\)\(.*?\((__sk_n_\d+)\) <"
                r" 2147483648LL.*?- 1LL\);", "unsigned long long " + dl
                + r" = (unsigned long long)((\1) - 1LL);", "dm64", count=1)
    wide = _sub(wide, f"unsigned int {dq} = 0;", f"unsigned long long {dq} = 0;", "dm64",
                literal=True)
    wide = _sub(wide, r"__sk_d([mc])32\( (.*?) , " + dl,
                r"__sk_d\g<1>64( (unsigned long long)(long long)(\2) , " + dl, "dm64")
    out["dm64"] = (prelude + wide, "scan and work in 64-bit (__sk_dm64/__sk_dc64, last = n-1)")
    out["scan-ldg"] = (prelude + _sub(kernel, r"__sk_dm32\( (.*?) ,",
                                      r"__sk_dm32( __ldg(&\1) ,", "scan-ldg"),
                       "the scan reads indices through __ldg (read-only path)")
    out["scan-unroll1"] = (prelude + _sub(kernel, r"(if \(!" + vr + r"\) \{ decltype\(\w+\) "
                                          + sv + r" = \w+; )for ", r'\1_Pragma("unroll 1") for ',
                                          "scan-unroll1"),
                           "the scan loop not unrolled (#pragma unroll 1)")
    minimal = _sub(kernel, r"(\{ decltype\(\w+\) " + sv + r" = \w+; )for \( int k = (\w+) ; "
                   r"k < (\w+) ; k \+\+ \) .*?__sk_dm32\( (.*?) , " + dl + r", &" + dq
                   + r"\) \] ;", r"\1for (int k = \2; k < \3; k++) { unsigned int __u = "
                   r"(unsigned int)(\4); " + dq + " = __u > " + dq + " ? __u : " + dq + "; }",
                   "scan-min", count=1)
    out["scan-min"] = (prelude + minimal,
                       "the scan written as only the running max of indices[k] (is the "
                       "generated scan's dead code all gone?)")
    return out


def bfs_variants(cur):
    """BFS's loop stores, so it is not versioned: its three checks run in the loop. Today's
    form (c3): `g.nlist[k]` an index check against the field's element count and all three by
    `__sk_ix32` (32-bit until 2026-11-28; now the sign-extended long's test, giving the
    tested int back zero-extended -- what call 4's `ix32-unsigned` measured); `before`: the form of calls 3 and 4 (`__sk_ptr`, 64-bit), to A/B
    them in one run. (Calls 3 and 4 also timed clamp-flag and one-check: tables in
    benchmarks/results/2026-11-27c-device-calls/.)"""
    prelude, kernel = _parts(cur)
    out = {"fail-inline": _fail_inline(prelude, kernel)}
    field = (r"g\.nlist\[__sk_ix32\(k, __sk_count\((__sk_fbytes_\w+), 4LL\), (0x[0-9a-f]+ULL), "
             r"0, __sk_fb\)\]")
    wide = re.sub(r"\b__sk_ix32\(", "__sk_ix(", kernel)
    out["ix64"] = (prelude + _sub(wide, field.replace("__sk_ix32", "__sk_ix"),
                                  r"g.nlist[__sk_ix(k, __sk_count(\1, 4LL), \2, 0, __sk_fb)]",
                                  "ix64"),
                   "the field's index check, all three checks by the 64-bit __sk_ix")
    out["before"] = (prelude + _sub(wide, field.replace("__sk_ix32", "__sk_ix"),
                                    r"(*__sk_ptr((g.nlist) + (k), g.nlist, \1, \2, __sk_fb))",
                                    "before"),
                     "as launched before (calls 3, 4): g.nlist[k] by __sk_ptr's pointer "
                     "offset, level[v]/next_frontier[v] by the 64-bit __sk_ix")
    entry = _sub(kernel, r"(if \(__sk_enter\(__sk_fb\)\) return;)",
                 r"\1 const long long __sk_nf = __sk_count(__sk_fbytes_0_16, 4LL);",
                 "count-at-entry", count=1)
    out["count-at-entry"] = (prelude + _sub(entry, r"__sk_count\(__sk_fbytes_0_16, 4LL\), ",
                                            "__sk_nf, ", "count-at-entry"),
                             "today's, the field's element count computed once at entry "
                             "(call 4's nlist-ix+ix32)")
    out["nlist-unchecked"] = (prelude + _sub(kernel, field, "g.nlist[k]", "nlist-unchecked"),
                              "g.nlist[k] unchecked: the most hoisting its check out of the "
                              "loop could give (level/next_frontier as today)")
    return out


VARIANTS = {"spmv_csr": spmv_variants, "bfs_step": bfs_variants}


# -- the launch -----------------------------------------------------------------------------

class Launch:
    """One case's kernel, its launch, the text safekern launches and the hidden arguments."""

    def __init__(self, name, quick, cp=None):
        import safekern.cupy as skcp

        self.case = cases.build(name, quick)
        adapted = c_cases.adapt(self.case, cuda_c_cases.CUDA_SOURCES, ".cu",
                                args={"bfs_step": cuda_c_cases._bfs_graph})
        self.arrays = ({k: cp.asarray(v) for k, v in self.case.arrays.items()} if cp
                       else self.case.arrays)
        (self.kname, grid, block, args), = adapted.plan(self.arrays)
        self.grid, self.block = cuda_c_cases._dims(grid), cuda_c_cases._dims(block)
        self.args = list(args)
        self.user = adapted.kernels[self.kname]
        self.filename = adapted.extra["filename"]
        self.wrapper = skcp.RawKernel(self.user, self.kname, filename=self.filename)
        program = self.wrapper._program
        arch = None if cp else "sm_90"
        rw = program.rewrite(arch)
        info = rw.kernel(self.kname)
        self.sizes = [np.int64(a.nbytes) for a in self.args if hasattr(a, "nbytes")
                      and hasattr(a, "shape") and a.shape != ()]
        self.fields = []
        if getattr(info, "fields", ()):
            if cp:
                self.fields, why = field_extents(self.args, info.fields)
            else:
                from tools.c_launch_checks import _allocations
                self.fields, why = field_extents(self.args, info.fields,
                                                 _allocations(self.case))
            if why:
                raise SystemExit(f"c_variant_ab: struct fields unresolved: {why}")
        proven = frozenset()
        if info.launch:
            mask, codes = compile_mask(info.launch, python_int=True)
            from safekern.backends.c_launch import cuda_geometry
            g, l = cuda_geometry(self.grid, self.block)
            m = mask(self.args, self.sizes + list(self.fields), g, l)
            proven = frozenset().union(*(c for i, c in enumerate(codes) if m >> i & 1))
        self.plain_launch = info.codes is not None and info.codes <= proven
        self.current = program.rewrite(arch, assume=proven).source
        self.outputs = self.case.outputs

    def texts(self):
        """{variant: (text, note, hidden arguments?)} in table order."""
        out = {"plain": (self.user, "the user's kernel (cupy.RawKernel)", False),
               "current": (self.current, "what safekern launches today"
                           + (" (a plain launch: the user's binary)" if self.plain_launch
                              else ""), not self.plain_launch)}
        if not self.plain_launch:
            for k, (text, note) in VARIANTS[self.case.name](self.current).items():
                out[k] = (text, note, True)
        return out


# -- compile only (CPU) -----------------------------------------------------------------------

def compile_rows(names, quick):
    """Yield (case, variant, note, text, registers, spill bytes, PTX calls, PTX loop body
    sizes) for every text, compiled by NVRTC for sm_90 with CuPy's default options."""
    from safekern.backends.cupy import nvrtc
    from safekern.backends.cupy.program import compile_options
    from tools.c_kernel_code import loops

    opts = compile_options(()) + ("--ptxas-options=-v",)
    for name in names:
        ln = Launch(name, quick)
        for vname, (text, note, _hidden) in ln.texts().items():
            res = nvrtc.compile_program(text, filename=ln.filename, arch="sm_90", options=opts)
            regs = re.search(r"Used (\d+) registers", res.log)
            spill = re.search(r"(\d+) bytes spill stores", res.log)
            ptx = res.ptx.decode(errors="replace")
            ptx = ptx[ptx.find(f".entry {ln.kname}("):]
            yield (name, vname, note, text, int(regs.group(1)) if regs else None,
                   int(spill.group(1)) if spill else None,
                   len(re.findall(r"^\s*call", ptx, re.M)), [len(b) for _, b in loops(ptx)])


def compile_only(names, quick):
    for name, vname, note, _text, regs, spill, calls, sizes in compile_rows(names, quick):
        print(f"{name:9s} {vname:17s} regs {regs}  spill {spill}  calls {calls}  PTX loop "
              f"bodies {sizes}  -- {note[:60]}", flush=True)
    return 0


# -- timing (GPU) ---------------------------------------------------------------------------

def _git_head():
    try:
        import subprocess
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


def measure(cp, name, rounds, launches, wrapper, src_dir):
    ln = Launch(name, False, cp)
    texts = ln.texts()
    rows = {}
    for vname, (text, note, hidden) in texts.items():
        k = cp.RawKernel(text, ln.kname)
        k.compile()
        fb = cp.zeros(16, dtype=np.int64)
        extra = tuple(ln.sizes) + tuple(ln.fields) + (fb,) if hidden else ()
        rows[vname] = dict(kernel=k, args=tuple(ln.args) + extra, fb=fb, note=note,
                           regs=k.attributes.get("num_regs"), times=[])
        if src_dir:
            with open(os.path.join(src_dir, f"{name}-{vname}.cu"), "w") as f:
                f.write(text)
    if wrapper:
        rows["safekern"] = dict(kernel=ln.wrapper, args=tuple(ln.args), fb=None, regs=None,
                                note="safekern.cupy.RawKernel itself (host wrapper included)",
                                times=[])

    def launch(r):
        r["kernel"](ln.grid, ln.block, r["args"])

    # outputs: each variant's from zeroed outputs, against plain's (and plain's against NumPy)
    got = {}
    for vname, r in rows.items():
        for o in ln.outputs:
            ln.arrays[o].fill(0)
        launch(r)
        cp.cuda.Device().synchronize()
        got[vname] = {o: ln.arrays[o].get() for o in ln.outputs}
    bad_ref = ln.case.compare(got["plain"], ln.case.reference())
    for vname, r in rows.items():
        r["same"] = all(np.array_equal(got[vname][o], got["plain"][o]) for o in ln.outputs)
    for r in rows.values():                 # warm up
        for _ in range(3):
            launch(r)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    names = list(rows)
    for rnd in range(rounds):
        order = names[rnd % len(names):] + names[:rnd % len(names)]
        for vname in order:
            r = rows[vname]
            start.record()
            for _ in range(launches):
                launch(r)
            end.record()
            end.synchronize()
            r["times"].append(cp.cuda.get_elapsed_time(start, end) * 1e3 / launches)
    for r in rows.values():
        r["fb_zero"] = r["fb"] is None or not bool(r["fb"].any())
    base = statistics.median(rows["plain"]["times"])
    cur = statistics.median(rows["current"]["times"])
    lines = [f"### {name} ({ln.case.size}; grid {ln.grid}, block {ln.block})", "",
             f"plain vs NumPy reference: {bad_ref or 'ok'}; hidden arguments: byte sizes "
             f"{[int(x) for x in ln.sizes]}, struct fields {[int(x) for x in ln.fields]}", "",
             "| variant | median us | min us | spread | /plain | /current | regs | output | "
             "fb | what |", "|---|---|---|---|---|---|---|---|---|---|"]
    for vname, r in rows.items():
        t = r["times"]
        med = statistics.median(t)
        lines.append(f"| {vname} | {med:.1f} | {min(t):.1f} | {(max(t) - min(t)) / med:.3f} | "
                     f"{med / base:.3f} | {med / cur:.3f} | {r['regs'] or ''} | "
                     f"{'same' if r['same'] else 'DIFFERS'} | "
                     f"{'0' if r['fb_zero'] else 'SET'} | {r['note']} |")
    del rows, ln
    cp.get_default_memory_pool().free_all_blocks()
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--launches", type=int, default=20, help="launches per timed sample")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", help="write the markdown here (and the texts beside it)")
    ap.add_argument("--no-wrapper", action="store_true")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--quick", action="store_true", help="the CI sizes (--compile-only)")
    a = ap.parse_args(argv)
    names = [n for n in a.cases.split(",") if n]
    for n in names:
        if n not in CASES:
            ap.error(f"unknown case {n!r} (known: {', '.join(CASES)})")
    if a.compile_only:
        return compile_only(names, a.quick)
    import cupy as cp

    t0 = time.perf_counter()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.runtime.getDevice())
    dev = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    src_dir = None
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        src_dir = os.path.splitext(a.out)[0] + "-sources"
        os.makedirs(src_dir, exist_ok=True)
    lines = [f"# C check variants A/B ({dev}, CuPy {cp.__version__}, CUDA runtime "
             f"{cp.cuda.runtime.runtimeGetVersion()}, commit {_git_head()})", "",
             f"`python tools/c_variant_ab.py {' '.join(sys.argv[1:] if argv is None else argv)}`"
             f": {a.rounds} rounds x {a.launches} launches per variant, round-robin, CUDA "
             "events; median per launch. spread = (max - min) / median.", ""]
    for n in names:
        part = measure(cp, n, a.rounds, a.launches, not a.no_wrapper, src_dir)
        print("\n".join(part), flush=True)
        lines += part + [""]
    lines.append(f"total {time.perf_counter() - t0:.0f} s")
    text = "\n".join(lines)
    print(lines[-1])
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
