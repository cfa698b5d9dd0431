"""Where a checked kernel's compile time goes, without a GPU: the front end vs numba's compile.

For every kernel the benchmark cases launch (the suite and, when extracted, the real-world set),
fresh each time (SAFEKERN_CACHE=off):

- `decorate`: `safekern.jit` of the function -- parse, the rewrite (checks, elimination, launch
  predicates and their variant) and the race analysis: the front end's whole cost;
- `rewrite`: the front end's rewrite alone (pipeline.rewrite_function, as a build makes it);
- `plain_ptx`: numba's own `cuda.compile_ptx` of the function (what plain numba compiles);
- `checked_ptx` / `variant_ptx`: the checked kernel's and its launch variant's PTX.

    NUMBA_ENABLE_CUDASIM=0 python -m tools.compile_profile [--profile N [--sort KEY]] [CASE ...]

`--profile N` also prints cProfile's top N functions of the front end (decorations only), by
`--sort` (cProfile's sort key: cumulative, the default, or tottime, ...).
Numbers are seconds on this machine's CPU: compare them with each other, not with a GPU run's.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time

from tools.fresh_function import fresh

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "0")
os.environ["SAFEKERN_CACHE"] = "off"



def _signature(args):
    import numba

    return numba.void(*(numba.typeof(a) for a in args))


def _kernels(names):
    """(case, kernel name, python function or real-world kernel, launch args) for each kernel."""
    from benchmarks import cases

    for name in names or list(cases.CASES):
        case = cases.build(name, quick=True)
        for kernel, _, _, args in case.first_launches():
            yield name, kernel, case.kernels[kernel], args


def _decorate(fn):
    import safekern

    if hasattr(fn, "build_for_mode"):
        return fn.build_for_mode()          # its module imported anew: decorated there
    return safekern.jit(fresh(fn))


def measure(names, profiler=None) -> list:
    from safekern import config
    from safekern.backends.numba.build import assume_device
    from numba import cuda

    config.reload()
    rows = []
    for case, kname, fn, args in _kernels(names):
        sig = _signature(args)
        row = {"case": case, "kernel": kname}
        try:
            if profiler:
                profiler.enable()
            t0 = time.perf_counter()
            k = _decorate(fn)
            row["decorate"] = time.perf_counter() - t0
            build = k.build
            t0 = time.perf_counter()
            build.rewrite()
            row["rewrite"] = time.perf_counter() - t0
            if profiler:
                profiler.disable()
            t0 = time.perf_counter()
            with assume_device((9, 0)):
                cuda.compile_ptx(k.py_func, sig, cc=(9, 0))
            row["plain_ptx"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            k.compile_ptx(sig, cc=(9, 0))
            row["checked_ptx"] = time.perf_counter() - t0
            variant = build.final_rewrite().launch_variant
            row["predicates"] = len(build.final_rewrite().launch_predicates)
            if variant is not None:
                from safekern.backends.numba.build import LaunchVariantBuild
                from safekern.backends.numba.kernel import CheckedKernel

                vk = CheckedKernel(k.py_func, k.sigs, k.options, parsed=k.parsed,
                                   build=LaunchVariantBuild(build))
                t0 = time.perf_counter()
                vk.compile_ptx(sig, cc=(9, 0))
                row["variant_ptx"] = time.perf_counter() - t0
        except Exception as err:       # noqa: BLE001 -- a row says what failed, the rest go on
            if profiler:
                profiler.disable()
            row["error"] = f"{type(err).__name__}: {str(err)[:120]}"
        rows.append(row)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*")
    p.add_argument("--profile", type=int, default=0, help="cProfile's top N of the front end")
    p.add_argument("--sort", default="cumulative", help="cProfile's sort key for --profile")
    args = p.parse_args(argv)
    profiler = cProfile.Profile() if args.profile else None
    rows = measure(args.cases, profiler)
    cols = ("decorate", "rewrite", "plain_ptx", "checked_ptx", "variant_ptx")
    print(f"{'kernel':34s}" + "".join(f"{c:>12s}" for c in cols) + "  front/plain")
    totals = dict.fromkeys(cols, 0.0)
    for r in rows:
        if "error" in r:
            print(f"{r['case'] + '.' + r['kernel']:34s}  {r['error']}")
            continue
        cells = "".join(f"{r[c]:12.3f}" if c in r else f"{'-':>12s}" for c in cols)
        print(f"{(r['case'] + '.' + r['kernel'])[:34]:34s}{cells}  "
              f"{r['decorate'] / r['plain_ptx']:.2f}")
        for c in cols:
            totals[c] += r.get(c, 0.0)
    print(f"{'total':34s}" + "".join(f"{totals[c]:12.3f}" for c in cols))
    if profiler:
        pstats.Stats(profiler, stream=sys.stdout).sort_stats(args.sort).print_stats(
            args.profile)


if __name__ == "__main__":
    main()
