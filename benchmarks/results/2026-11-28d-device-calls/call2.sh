#!/usr/bin/env bash
# Session 2026-11-28d call 2 (1 GPU, 16 cores): on the GPU in turn the CuPy benchmarks, the CuPy
# probe, pytest -m gpu tests/cupy (cores 0-5); the fuzzers on cores 6-15.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1
( taskset -c 0-3 timeout 280 python3 -m benchmarks --languages cupy --modes unchecked,checked --reps 5 --no-host --compile-reps 0 --out $OUT/cupy > $OUT/bench-cupy.log 2>&1; echo "rc=$?" >> $OUT/bench-cupy.log
  taskset -c 0,1 timeout 100 python3 .wt/lead4/cupy_probe.py saxpy,jacobi > $OUT/cupy_probe.log 2>&1; echo "rc=$?" >> $OUT/cupy_probe.log
  taskset -c 0-5 timeout 170 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 150 -rfE tests/cupy > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log ) &
OSEED=$1 LSEED=$2 MIN=${MIN:-8} FUZZJ=5 NOEXTRA=1 taskset -c 6-$((N-1)) bash .wt/lead3/callC.sh > $OUT/fuzz-summary.log 2>&1
wait
cat $OUT/fuzz-summary.log | tail -8; tail -n 3 $OUT/gpu-tests.log; grep -E "geomean|worst|rc=|host" $OUT/bench-*.log | tail -20
grep "unchecked/stream\|checked/sk_sync \|checked/stream " $OUT/cupy_probe.log | cut -c1-200
