#!/usr/bin/env bash
# Session 2026-11-29b call C (one H200): the numba benchmark, both sets, at the final code (the
# outlined checked copy back in): compile time, 7 fresh compiles a kernel and mode, each sample
# collected and the rest frozen; run time only as a check (1 rep), as 2026-11-29's call 2.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 570 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 1 --warmup 0 --target-ms 5 --no-host --compile-reps 7 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 50 $OUT/bench-numba.log
