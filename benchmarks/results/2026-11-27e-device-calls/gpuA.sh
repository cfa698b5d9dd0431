#!/usr/bin/env bash
# Session 2026-11-27e call 6: the submitted code's numba benchmarks (suite + real-world; compile time; host
# time per launch), one run, modes interleaved.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
SAFEKERN_BENCH_REALWORLD=.realworld timeout 560 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 2 --host-batches 7 --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "numba rc=$?" >> $OUT/bench-numba.log
grep -E "geomean|goal|rc=|host|worst|compile time" $OUT/bench-numba.log | tail -24
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
