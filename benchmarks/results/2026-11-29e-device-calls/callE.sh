#!/usr/bin/env bash
# Session 2026-11-29e call E (one H200): the numba benchmark again after the shared exit
# record block (exit_block.py), one report with both sets (run time: 3 repetitions after 2 warm-ups, modes interleaved), the host
# time per launch and the compile time of the first launch (5 fresh compiles a kernel and mode).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 580 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --warmup 2 --host-batches 15 --compile-reps 5 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 60 $OUT/bench-numba.log
