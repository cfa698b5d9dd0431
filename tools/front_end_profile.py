"""The front end's share of the first launch, alone and fast: CPU seconds per benchmark case.

What tools/first_launch_profile.py counts as "front" for a checked first step -- decorating the
case's kernels (module import for the real-world set), choosing the forms the step launches
(`step_forms`) and making their numba dispatchers -- with numba's compiles left out (a
dispatcher decorated with signatures compiles nothing here), so that a change to the front end
is measured in seconds, not minutes:

    NUMBA_ENABLE_CUDASIM=0 python -m tools.front_end_profile [--reps N] [--no-gc]
        [--profile N [--sort KEY]] [CASE ...]

CPU seconds of this process (time.process_time), per case the best of `--reps` (each rep
decorates anew: fresh functions, SAFEKERN_CACHE=off); the first rep is the cold one a benchmark
sees. `--no-gc`: the collector off while a case is measured (steadier figures on a busy
machine). `--profile N`: cProfile's top N functions of the first rep, by `--sort` (cProfile's
sort key: cumulative, the default, tottime, ...).
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import sys
import time

from tools.fresh_function import fresh

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "0")
os.environ["SAFEKERN_CACHE"] = "off"


def _without_numba_compiles():
    """numba's dispatchers made with signatures compile nothing (that is numba's share)."""
    from numba.cuda.dispatcher import CUDADispatcher

    CUDADispatcher.compile = lambda self, argtypes: None
    CUDADispatcher.compile_device = lambda self, argtypes, restype=None: None
    CUDADispatcher.disable_compile = lambda self, val=True: None


def front(case, plan, profiler=None, no_gc=False) -> float:
    """CPU seconds of one checked decoration of `case` and its first step's forms."""
    from benchmarks import modes
    from tools.first_launch_profile import step_forms

    mode = modes.MODES["checked"]
    gc.collect()
    if no_gc:
        gc.disable()
    try:
        with modes.active(mode, SAFEKERN_CACHE="off"):
            if profiler:
                profiler.enable()
            t0 = time.process_time()
            built = {k: modes.decorate(mode, fresh(fn)) for k, fn in case.kernels.items()}
            for _, _, build, _ in step_forms(built, plan):
                build.dispatcher()
            seconds = time.process_time() - t0
            if profiler:
                profiler.disable()
    finally:
        gc.enable()
    return seconds


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--no-gc", action="store_true")
    p.add_argument("--profile", type=int, default=0)
    p.add_argument("--sort", default="cumulative", help="cProfile's sort key for --profile")
    args = p.parse_args(argv)
    from benchmarks import cases
    from safekern import config

    config.reload()
    _without_numba_compiles()
    names = args.cases or list(cases.CASES)
    built = {}
    for name in names:
        case = cases.build(name, True)
        built[name] = case, case.plan(case.arrays)
    front(*built[names[0]])                 # one-off imports
    profiler = cProfile.Profile() if args.profile else None
    best = {}
    for rep in range(args.reps):
        for name in names:
            t = front(*built[name], profiler if rep == 0 else None, args.no_gc)
            best[name] = min(best.get(name, t), t)
    for name in names:
        print(f"{name:24s} {best[name]:8.3f}")
    print(f"TOTAL {len(names)} cases: {sum(best.values()):.3f} s CPU (best of {args.reps})")
    if profiler:
        pstats.Stats(profiler, stream=sys.stdout).sort_stats(args.sort).print_stats(
            args.profile)


if __name__ == "__main__":
    main()
