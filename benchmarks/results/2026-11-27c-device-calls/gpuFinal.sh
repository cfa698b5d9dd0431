#!/usr/bin/env bash
# Session 2026-11-27c call 6: the benchmarks of the final code in one call: C (CuPy, OpenCL), OpenCL host
# time per launch, numba suite + real-world set with compile timing.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout 130 python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c > $OUT/bench-c.log 2>&1; echo "c rc=$?" >> $OUT/bench-c.log
timeout 50 python3 tools/opencl_launch_host.py hotspot > $OUT/ocl-host.log 2>&1; echo "rc=$?" >> $OUT/ocl-host.log
SAFEKERN_BENCH_REALWORLD=.realworld timeout 380 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 2 --no-host --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "numba rc=$?" >> $OUT/bench-numba.log
echo "=== c"; grep -E "x\)$|geomean|goal|rc=" $OUT/bench-c.log | tail -32
echo "=== ocl host"; tail -8 $OUT/ocl-host.log
echo "=== numba"; grep -E "geomean|goal|rc=|bfs_step|perlin|fbpic_gather|stump|pairs" $OUT/bench-numba.log | tail -30
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
