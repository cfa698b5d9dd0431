#!/usr/bin/env bash
# Session 2026-11-28g call 3 (one H200): numba's GPU tests, then the numba benchmark (both
# sets): run time (5 reps), compile time of the first launch (7 fresh compiles per kernel and
# mode: the H200 machine's samples varied by up to 50% with 3), host time per launch.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE -x > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
tail -n 3 $OUT/pytest-gpu-numba.log
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 455 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 5 --compile-reps 7 --host-batches 5 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 10 $OUT/bench-numba.log
