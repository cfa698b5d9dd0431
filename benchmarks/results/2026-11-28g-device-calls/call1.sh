#!/usr/bin/env bash
# Session 2026-11-28g call 1 (one H200): numba's GPU tests, then the numba benchmark (both
# sets): run time (5 reps), compile time of the first launch (3 fresh compiles per kernel and
# mode), host time per launch (7 batches).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 130 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
tail -n 3 $OUT/pytest-gpu-numba.log
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 440 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 5 --compile-reps 3 --host-batches 7 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 12 $OUT/bench-numba.log
