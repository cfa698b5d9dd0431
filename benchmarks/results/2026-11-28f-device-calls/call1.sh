#!/usr/bin/env bash
# Session 2026-11-28f call 1 (one H200): numba's GPU tests at this code, then the numba
# benchmark (both sets): run time, and compile time of the first launch with 3 fresh compiles
# per kernel and mode.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
tail -n 3 $OUT/pytest-gpu-numba.log
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 370 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 5 --compile-reps 3 --no-host --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 30 $OUT/bench-numba.log
