#!/usr/bin/env bash
# Session 2026-11-28e call A (2 GPUs, 32 cores): on cores 0-3 numba's GPU tests (the lazy kernel
# rewrite on a GPU), then numba's compile time of the first launch and run time on the GPU
# (both sets); the C fuzzers on cores 4-31 (seeds $1 --opencl, $2 --opencl-launch).
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1
( taskset -c 0-3 timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -x -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
  SAFEKERN_BENCH_REALWORLD=$PWD/.realworld taskset -c 0-3 timeout 280 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 1 --no-host --out $OUT/numba-compile > $OUT/bench-numba-compile.log 2>&1; echo "rc=$?" >> $OUT/bench-numba-compile.log ) &
OSEED=$1 LSEED=$2 MIN=${MIN:-8} FUZZJ=${FUZZJ:-13} NOEXTRA=1 taskset -c 4-$((N-1)) bash .wt/lead3/callC.sh > $OUT/fuzz-summary.log 2>&1
wait
tail -n 3 $OUT/pytest-gpu-numba.log; tail -n 25 $OUT/bench-numba-compile.log; tail -n 12 $OUT/fuzz-summary.log
