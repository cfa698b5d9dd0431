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


def measure(names, sites=False, ptx_dir=None) -> list:
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
            plain = ptx_counts(cuda.compile_ptx(k.py_func, sig, cc=(9, 0))[0])
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
            launched, text = plain, None
        else:
            try:
                with assume_device((9, 0)):
                    text = run.compile_ptx(sig, cc=(9, 0))
                launched = ptx_counts(text)
            except Exception:     # noqa: BLE001 -- eager signatures want a device: no count
                launched, text = {"total": -1}, None
        if ptx_dir and text is not None:
            with open(os.path.join(ptx_dir, f"{case}.{kname}.ptx"), "w") as f:
                f.write(text)
        rows.append({"kernel": f"{case}.{kname}", "checked": len(left),
                     "preds": f"{bin(mask).count('1')}/{len(preds)}", "plain": plain,
                     "launched": launched, "sites": left})
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
    args = p.parse_args(argv)
    if args.ptx_dir:
        os.makedirs(args.ptx_dir, exist_ok=True)
    rows = measure(args.cases, args.sites, args.ptx_dir)
    print(f"{'kernel':36s}{'checked':>8s}{'preds':>7s}{'plain':>7s}{'launched':>9s}"
          f"{'+setp':>6s}{'+bra':>6s}")
    for r in rows:
        pl, la = r["plain"], r["launched"]
        print(f"{r['kernel'][:36]:36s}{r['checked']:8d}{r['preds']:>7s}{pl['total']:7d}"
              f"{la['total']:9d}{la.get('setp', 0) - pl.get('setp', 0):6d}"
              f"{la.get('bra', 0) - pl.get('bra', 0):6d}")


if __name__ == "__main__":
    main()
