"""Where the benchmark's compile time of the first launch goes on a GPU, per case, checked vs
plain numba: benchmarks/overhead.py's `_compile_once` (decorate, first step, less a second
step; SAFEKERN_CACHE=off) under cProfile, after the same warm-up.

    python -m tools.gpu_compile_profile [--reps N] [--top K] CASE ... > profile.txt

For each case and mode: the seconds of each repetition, then (checked, the last repetition)
the functions with the most cumulative and the most own time -- the CPU profile
(tools/first_launch_profile.py) cannot show what only a launch on a GPU does (loading modules,
the first sync, whatever a GPU launch compiles that a CPU mirror of the dispatcher does not).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="+")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)

    import numpy as np
    from numba import cuda

    from benchmarks import cases, kernels, modes
    from benchmarks.overhead import _compile_once, _fresh

    arr = cuda.device_array(1, np.float32)
    for mode in (modes.UNCHECKED, modes.CHECKED):          # the one-off costs, as the benchmark
        with modes.active(mode, SAFEKERN_CACHE="off"):
            modes.decorate(mode, _fresh(kernels.empty_array))[1, 1](arr)
            modes.app_sync(mode)
    for name in args.cases:
        case = cases.build(name, True, 1234)
        dev = {k: cuda.to_device(v) for k, v in case.arrays.items()}
        plan = case.plan(dev)
        for mode in (modes.UNCHECKED, modes.CHECKED):
            secs = []
            for rep in range(args.reps):
                last = rep == args.reps - 1
                prof = cProfile.Profile() if last else None
                t0 = time.perf_counter()
                if prof:
                    prof.enable()
                secs.append(_compile_once(mode, case, plan))
                if prof:
                    prof.disable()
                wall = time.perf_counter() - t0
            print(f"== {name} {mode.name}: " + " ".join(f"{s:.3f}" for s in secs)
                  + f" s (last with the profiler: {wall:.3f} s wall)", flush=True)
            if prof is not None and mode is modes.CHECKED:
                for key in ("cumulative", "tottime"):
                    out = io.StringIO()
                    pstats.Stats(prof, stream=out).sort_stats(key).print_stats(args.top)
                    print("\n".join(line for line in out.getvalue().splitlines()[6:]
                                    if line.strip()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
