#!/usr/bin/env bash
# Session 2026-11-29 call 1 (one H200): the numba benchmark, both sets, with compile-time
# samples that start collected and record the cyclic collector's share (benchmarks/collector.py):
# run time (3 reps), compile time of the first launch (5 fresh compiles a kernel and mode).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 560 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --warmup 2 --no-host --compile-reps 5 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 70 $OUT/bench-numba.log
