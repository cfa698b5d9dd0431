#!/usr/bin/env bash
# Session 2026-11-28h call 1 (one H200): the numba benchmark's compile time of the first launch
# (both sets, 5 fresh compiles per kernel and mode) at the front end's faster code; run time
# with 2 reps only (the rewrites are the same as the last session's: tools.prover_snapshot).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 560 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 2 --warmup 1 --no-host --compile-reps 5 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 60 $OUT/bench-numba.log
