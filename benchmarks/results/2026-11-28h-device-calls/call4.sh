#!/usr/bin/env bash
# Session 2026-11-28h call 4 (one H200): at the final code (checked copies' checks end the
# thread; the pending skip one statement): numba's GPU tests, then the numba benchmark, both
# sets: run time (3 reps), compile time of the first launch (5 fresh compiles a kernel and mode).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
tail -n 4 $OUT/pytest-gpu-numba.log
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 400 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --warmup 2 --no-host --compile-reps 5 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
tail -n 62 $OUT/bench-numba.log
