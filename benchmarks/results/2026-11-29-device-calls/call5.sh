#!/usr/bin/env bash
# Session 2026-11-29 call 5 (one H200), as call 4 after the outlined copy got a flag array of its own: the benchmark's fbpic kernels (the
# ones with inline=True device functions: backends/numba/cold_bodies.py), run time (5 reps, 2
# warm-ups) and compile time (7 fresh compiles a kernel and mode), through the benchmark's own
# functions (`--only` takes the 20-kernel suite's names only).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 250 python3 - > $OUT/fbpic.log 2>&1 <<'PY'
import json, os
from benchmarks import harness, modes, overhead
names = ["rw_fbpic_gather", "rw_fbpic_deposit", "rw_fbpic_push_p"]
settings = harness.Settings(quick=False, reps=5, warmup=2, target_ms=20, seed=1234)
out = {"run": [], "compile": None}
for name in names:
    r = harness.run_case(name, [modes.UNCHECKED, modes.CHECKED], settings, log=print)
    out["run"].append(r)
    print(name, {m: (v.get("status"), v.get("verified"), v.get("ms_per_step", {}).get("median"))
                 for m, v in r["modes"].items()}, r.get("ratios"))
out["compile"] = overhead.compile_times(names, 7, 1234, log=print)
json.dump(out, open(os.path.join(os.environ["OUT"], "fbpic.json"), "w"), default=str)
PY
echo "rc=$?" >> $OUT/fbpic.log
tail -n 12 $OUT/fbpic.log
