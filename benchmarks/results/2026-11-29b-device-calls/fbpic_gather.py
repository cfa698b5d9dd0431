"""fbpic's field gather (rw_fbpic_gather) through the benchmark's own functions, in the tree it
runs in: run time (5 reps, 2 warm-ups) and compile time (7 fresh compiles a mode). `--only`
takes the 20-kernel suite's names only, hence this script.

    SAFEKERN_BENCH_REALWORLD=.realworld python .../fbpic_gather.py OUT.json
"""
import json, sys

from benchmarks import harness, modes, overhead

name = "rw_fbpic_gather"
settings = harness.Settings(quick=False, reps=5, warmup=2, target_ms=20, seed=1234)
r = harness.run_case(name, [modes.UNCHECKED, modes.CHECKED], settings, log=print)
print(name, {m: (v.get("status"), v.get("verified"), v.get("ms_per_step", {}).get("median"))
             for m, v in r["modes"].items()}, r.get("ratios"), flush=True)
c = overhead.compile_times([name], 7, 1234, log=print)
json.dump({"run": r, "compile": c}, open(sys.argv[1], "w"), default=str)
