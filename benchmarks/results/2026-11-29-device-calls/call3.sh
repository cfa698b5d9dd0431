#!/usr/bin/env bash
# Session 2026-11-29 call 3 (one H200), at the final code (an inlined device function's checked
# copy outlined: backends/numba/cold_bodies.py): numba's GPU tests; numba-cuda's own suite under
# safekern.jit; the benchmark's fbpic kernels (the ones with inline=True device functions): run
# time (5 reps) and compile time (7 fresh compiles a kernel and mode).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
tail -n 4 $OUT/pytest-gpu-numba.log
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 130 python3 -m benchmarks --languages numba --modes unchecked,checked --only rw_fbpic_gather,rw_fbpic_deposit,rw_fbpic_push_p --reps 5 --warmup 2 --no-host --compile-reps 7 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 12 $OUT/bench-numba.log
timeout 290 python3 tools/numba_suite.py --workers 12 --timeout 200 --deadline 270 --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
tail -n 25 $OUT/numba-suite.log
