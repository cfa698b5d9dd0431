#!/usr/bin/env bash
# Session 2026-11-27c call 1: numba benchmark (suite + real-world set, compile timing) in one run at main.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
SAFEKERN_BENCH_REALWORLD=.realworld timeout ${NBENCH_T:-530} python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 2 --no-host --out $OUT/numba > $OUT/bench-numba.log 2>&1
echo "numba rc=$?" >> $OUT/bench-numba.log
echo "=== numba"; grep -v Warning $OUT/bench-numba.log | tail -60
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
