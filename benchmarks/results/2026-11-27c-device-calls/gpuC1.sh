#!/usr/bin/env bash
# Session 2026-11-27c call 2: C benchmarks (CuPy, OpenCL) in one run at main.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout ${CBENCH_T:-300} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c > $OUT/bench-c.log 2>&1
echo "c rc=$?" >> $OUT/bench-c.log
echo "=== c"; grep -v Warning $OUT/bench-c.log | tail -40
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
