#!/usr/bin/env bash
# Session 2026-11-28d call 3 (1 GPU, 16 cores): on the GPU in turn numba's host time per launch
# (vector_add's run with the host batches), CuPy's test_raw.py under safekern (tools/cupy_suite.py);
# the C fuzzers on cores 6-15.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1
( taskset -c 0-3 timeout 150 python3 -m benchmarks --languages numba --only vector_add --modes unchecked,checked --reps 3 --compile-reps 0 --host-batches 15 --out $OUT/numba-host > $OUT/bench-numba-host.log 2>&1; echo "rc=$?" >> $OUT/bench-numba-host.log
  taskset -c 0-5 timeout 250 python3 tools/cupy_suite.py --workdir /tmp/cupysuite --timeout 200 --table $OUT/cupy-table.md --json $OUT/cupy.json > $OUT/cupy-suite.log 2>&1; echo "rc=$?" >> $OUT/cupy-suite.log ) &
OSEED=$1 LSEED=$2 MIN=${MIN:-8} FUZZJ=5 NOEXTRA=1 taskset -c 6-$((N-1)) bash .wt/lead3/callC.sh > $OUT/fuzz-summary.log 2>&1
wait
tail -n 4 $OUT/cupy-suite.log; grep -iE "host|rc=" $OUT/bench-numba-host.log | tail -8
