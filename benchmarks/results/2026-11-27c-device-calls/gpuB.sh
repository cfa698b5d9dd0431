#!/usr/bin/env bash
# Session 2026-11-27c call 10: the benchmarks of the merged code: C (CuPy, OpenCL), numba with compile timing.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout 130 python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c > $OUT/bench-c.log 2>&1; echo "c rc=$?" >> $OUT/bench-c.log
SAFEKERN_BENCH_REALWORLD=.realworld timeout 420 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 3 --no-host --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "numba rc=$?" >> $OUT/bench-numba.log
echo "=== c"; grep -E "x\)$|geomean|goal|rc=" $OUT/bench-c.log | grep -v "^cupy:\|^opencl:[a-r]" | tail -12; grep "bfs\|hotspot\|spmv" $OUT/bench-c.log
echo "=== numba"; grep -E "geomean|goal|rc=|^bfs_step|perlin|fbpic_gather|stump|pairs" $OUT/bench-numba.log | grep -v "^compile" | tail -20
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
