#!/usr/bin/env bash
# Session 2026-11-28h call 3 (one H200): the numba benchmark at the final code, both sets: run
# time (5 reps), compile time of the first launch (5 fresh compiles per kernel and mode), host
# time per launch (5 batches).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 570 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 5 --compile-reps 5 --host-batches 5 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 70 $OUT/bench-numba.log
