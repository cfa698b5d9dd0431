"""Differential fuzzer of the race analysis: generated kernels, verdicts against recorded accesses.

    python -m tools.fuzz_races --minutes 10 [--seed 0] [--out DIR]
    python -m tools.fuzz_races --count 5000 --seed 100000

Each seed's kernel (tests/support/fuzz_races.py: barriers, grid syncs, barriers in branches and
loops, shifts, reflections, aliased arguments) runs once on the CUDA simulator as a recording
twin; safekern's verdict for the launch is compared with the conflicts the records show. A
false positive (a RaceError where no two threads conflict), an unsound "free" (two threads
conflict) or a race merely suspected in a kernel that must be decided exactly is a bug: its
kernel goes to DIR with what differed, a line goes to stdout, and the exit status is 1. A line
of counts (safekern's verdict x whether threads conflicted) closes the run. The CI test
(tests/numba/test_races_differential.py) runs the same for about 25 s.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"          # before numba is imported
os.environ["SAFEKERN_CACHE"] = "off"


def run(count, seed, minutes, out, log=print) -> int:
    from tests.support import fuzz_races

    start, done, bad, counts = time.monotonic(), 0, 0, {}
    for s in range(seed, seed + count):
        if minutes is not None and time.monotonic() - start > minutes * 60:
            break
        case = fuzz_races.generate(s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome, conflict, said = fuzz_races.compare(case)
        counts[(said, conflict)] = counts.get((said, conflict), 0) + 1
        if outcome in ("false positive", "unsound") or (outcome == "missed" and case.exact):
            bad += 1
            log(f"seed {s}: {outcome} (safekern: {said}, threads conflict: {conflict})")
            if out:
                os.makedirs(out, exist_ok=True)
                with open(os.path.join(out, f"race_fuzz_{s}.py"), "w") as f:
                    f.write(f"# {outcome}: safekern {said}, conflict {conflict}, launch "
                            f"[{case.griddim}, {case.blockdim}], layout {case.layout} "
                            f"{case.shape} at {case.offsets}, m = {case.m}\n{case.source}")
        done += 1
        if done % 500 == 0:
            log(f"{done} kernels, {bad} bad, {time.monotonic() - start:.0f} s")
    log(f"{done} kernels in {time.monotonic() - start:.0f} s, {bad} bad; "
        + ", ".join(f"{v} {k[0]}/{'conflict' if k[1] else 'none'}"
                    for k, v in sorted(counts.items())))
    return 1 if bad else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10 ** 9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.count == 10 ** 9 and args.minutes is None:
        args.minutes = 5.0
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return run(args.count, args.seed, args.minutes, args.out)


if __name__ == "__main__":
    sys.exit(main())
