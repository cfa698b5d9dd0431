"""Which checks stay in the kernel a benchmark launch actually runs, and what they cost in PTX.

For every kernel the named benchmark cases launch (the suite and, when extracted, the
real-world set), with the case's own arguments and launch configuration:

- `checked`: check sites still checked in that launch -- the kernel's (and its device
  functions') sites that run a check, less those proven by the launch predicates that hold for
  these arguments and this configuration (safekern/backends/numba/predicates.py);
- `preds`: how many of the kernel's launch predicates hold / how many it has;
- `plain` / `launched`: PTX instructions of numba's own kernel and of the kernel the launch runs
  (numba's own when it holds no check, plain.py; else the launch variant when every predicate
  holds, the partial variant of those that hold where only some do, as the dispatcher makes
  it, else the checked kernel), and `setp` / `bra`:
  the compares and branches the launched kernel adds over plain numba.

    NUMBA_ENABLE_CUDASIM=0 python -m tools.launched_checks [--sites] [--ptx-dir DIR] [CASE ...]

`--sites` lists each remaining check (line, text, reason); `--ptx-dir` writes each launched
kernel's PTX to DIR/<case>.<kernel>.ptx (to compare two trees, or to run ptxas on). CPU only: the PTX is compiled for
sm_90 without a GPU; instruction counts are a proxy for run time, not a measure of it.
`--registers` (needs `ptxas` on PATH) adds each kernel's registers per thread, plain and
launched, and the occupancy (resident warps of an SM's 64, from registers and the case's block
size only) each gives: a checked kernel that needs a few registers more can lose a quarter of
its warps, which a latency-bound gather pays in full.
"""
from __future__ import annotations

import argparse
import os
import re

from tools.fresh_function import fresh

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "0")
os.environ["SAFEKERN_CACHE"] = "off"

_INSTRUCTION = re.compile(r"^\s*(@!?%p\d+\s+)?([a-z][\w.]*)[^:]*;\s*$")
_DECLARATION = ("ld.param", ".reg", ".shared", ".local", ".param", ".loc", ".file")


def ptx_counts(ptx: str) -> dict:
    """Instruction counts of a PTX text: total, and by opcode family (setp, bra, ...)."""
    counts: dict = {"total": 0}
    for line in ptx.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("//", ".")) or stripped.startswith(_DECLARATION):
            continue
        m = _INSTRUCTION.match(line)
        if m is None:
            continue
        family = m.group(2).split(".")[0]
        counts["total"] += 1
        counts[family] = counts.get(family, 0) + 1
    return counts



def _launches(names):
    """(case, kernel name, function, grid, block, args): each kernel's first launch."""
    from benchmarks import cases

    for name in names or list(cases.CASES):
        case = cases.build(name, quick=False)
        for kernel, grid, block, args in case.first_launches():
            yield name, kernel, case.kernels[kernel], grid, block, args


def _decorate(fn):
    import safekern

    if hasattr(fn, "build_for_mode"):
        return fn.build_for_mode()
    return safekern.jit(fresh(fn))


def ptx_registers(ptx: str) -> int | None:
    """Registers per thread ptxas gives the PTX's kernel for sm_90 (None: no ptxas, or it
    failed). A PTX version newer than this ptxas knows is lowered to its own: the
    instructions numba emits for sm_90 are the same."""
    import shutil
    import subprocess
    import tempfile

    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.ptx")
        for attempt in range(2):
            with open(path, "w") as f:
                f.write(ptx)
            done = subprocess.run([ptxas, "-arch=sm_90", "-v", path, "-o", os.devnull],
                                  capture_output=True, text=True)
            found = re.search(r"Used (\d+) registers", done.stderr)
            if found:
                return int(found.group(1))
            known = re.search(r"current version is '([\d.]+)'", done.stderr)
            if attempt or known is None:
                return None
            ptx = re.sub(r"^\.version [\d.]+", f".version {known.group(1)}", ptx, flags=re.M)
    return None


def occupancy(registers: int | None, threads: int) -> float | None:
    """Resident warps of an sm_90 SM's 64 for a block of `threads`, from registers alone
    (65536 a SM, allocated 256 a warp; at most 32 blocks; shared memory not counted)."""
    if not registers:
        return None
    warps = -(-threads // 32)
    per_warp = -(-registers * 32 // 256) * 256
    blocks = min(65536 // (per_warp * warps), 64 // warps, 32)
    return blocks * warps / 64


def measure(names, sites=False, ptx_dir=None, registers=False) -> list:
    import numba
    from numba import cuda

    from safekern.backends.numba.build import LaunchVariantBuild, assume_device
    from safekern.backends.numba.dispatch import check_free
    from safekern.backends.numba.kernel import CheckedKernel
    from safekern.backends.numba.predicates import compile_mask
    from safekern.report import Status

    rows = []
    for case, kname, fn, grid, block, args in _launches(names):
        k = _decorate(fn)
        build = k.build
        final = build.final_rewrite()
        preds = list(final.launch_predicates)
        mask = compile_mask(preds)(args, (grid, block)) if preds else 0
        held = {p.text() for i, p in enumerate(preds) if mask >> i & 1}
        left = [e for e in k.check_report()
                if e.status in (Status.CHECKED, Status.HOISTED)
                or (e.status == Status.PROVEN_AT_LAUNCH
                    and not set((e.predicate or "").split(" and ")) <= held)]
        sig = numba.void(*(numba.typeof(a) for a in args))
        with assume_device((9, 0)):
            plain_text = cuda.compile_ptx(k.py_func, sig, cc=(9, 0))[0]
        plain = ptx_counts(plain_text)
        run, rewrite = k, final
        if preds and mask == (1 << len(preds)) - 1 and final.launch_variant is not None:
            run = CheckedKernel(k.py_func, k.sigs, k.options, parsed=k.parsed,
                                build=LaunchVariantBuild(build))
            rewrite = final.launch_variant
        elif mask and final.launch_variant is not None:
            # As the dispatcher (predicates.py): the partial variant of the predicates held.
            variant = LaunchVariantBuild(build, frozenset(p for i, p in enumerate(preds)
                                                          if mask >> i & 1))
            run = CheckedKernel(k.py_func, k.sigs, k.options, parsed=k.parsed, build=variant)
            rewrite = variant.final_rewrite()
        # A launch whose kernel holds no check runs numba's own kernel (plain.py).
        if check_free(rewrite):
            launched, text = plain, plain_text
        else:
            try:
                with assume_device((9, 0)):
                    text = run.compile_ptx(sig, cc=(9, 0))
                launched = ptx_counts(text)
            except Exception:     # noqa: BLE001 -- eager signatures want a device: no count
                launched, text = {"total": -1}, None
        threads = 1
        for d in (block if isinstance(block, tuple) else (block,)):
            threads *= d
        regs = {"threads": threads}
        if registers:
            regs.update(plain=ptx_registers(plain_text),
                        launched=ptx_registers(text) if text is not None else None)
        if ptx_dir and text is not None and text is not plain_text:
            with open(os.path.join(ptx_dir, f"{case}.{kname}.ptx"), "w") as f:
                f.write(text)
        rows.append({"kernel": f"{case}.{kname}", "checked": len(left),
                     "preds": f"{bin(mask).count('1')}/{len(preds)}", "plain": plain,
                     "launched": launched, "sites": left, "registers": regs})
        if sites:
            for e in left:
                print(f"  {case}.{kname}:{e.lineno}:{e.col} {e.kind} {e.text!r} "
                      f"[{e.status}] {e.reason or ''}")
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*")
    p.add_argument("--sites", action="store_true", help="list each remaining check")
    p.add_argument("--ptx-dir", help="write each launched kernel's PTX there")
    p.add_argument("--registers", action="store_true",
                   help="registers and occupancy, plain and launched (ptxas)")
    args = p.parse_args(argv)
    if args.ptx_dir:
        os.makedirs(args.ptx_dir, exist_ok=True)
    rows = measure(args.cases, args.sites, args.ptx_dir, args.registers)
    print(f"{'kernel':36s}{'checked':>8s}{'preds':>7s}{'plain':>7s}{'launched':>9s}"
          f"{'+setp':>6s}{'+bra':>6s}" + ("  regs plain/launched  occupancy" if args.registers
                                           else ""))
    for r in rows:
        pl, la = r["plain"], r["launched"]
        line = (f"{r['kernel'][:36]:36s}{r['checked']:8d}{r['preds']:>7s}{pl['total']:7d}"
                f"{la['total']:9d}{la.get('setp', 0) - pl.get('setp', 0):6d}"
                f"{la.get('bra', 0) - pl.get('bra', 0):6d}")
        if args.registers:
            g = r["registers"]
            occ = [occupancy(g.get(k), g["threads"]) for k in ("plain", "launched")]
            line += (f"  {g.get('plain')!s:>4s}/{g.get('launched')!s:<4s} "
                     + " -> ".join("?" if o is None else f"{o:.2f}" for o in occ)
                     + ("  LOST" if None not in occ and occ[1] < occ[0] else ""))
        print(line)


if __name__ == "__main__":
    main()
