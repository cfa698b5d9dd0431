#!/usr/bin/env bash
# Session 2026-11-27b call 2: benchmarks on a quiet machine: C (CuPy, OpenCL), OpenCL host per launch,
# numba with the real-world set.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
timeout ${CBENCH_T:-170} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c > $OUT/bench-c.log 2>&1
echo "c rc=$?" >> $OUT/bench-c.log
timeout 50 python3 tools/opencl_launch_host.py hotspot spmv_csr > $OUT/ocl-host.log 2>&1; echo "rc=$?" >> $OUT/ocl-host.log
SAFEKERN_BENCH_REALWORLD=.realworld timeout ${NBENCH_T:-330} python3 -m benchmarks --languages numba --modes unchecked,checked --reps 5 --compile-reps 1 --no-host --out $OUT/numba > $OUT/bench-numba.log 2>&1
echo "numba rc=$?" >> $OUT/bench-numba.log
echo "=== c"; grep -v Warning $OUT/bench-c.log | tail -34
echo "=== ocl host"; tail -12 $OUT/ocl-host.log
echo "=== numba"; grep -v Warning $OUT/bench-numba.log | tail -50
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
