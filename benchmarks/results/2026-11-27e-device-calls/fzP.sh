#!/usr/bin/env bash
# Session 2026-11-27e call 3: the C fuzzers' throughput on the GPU machine's PoCL (16 processes, 90 s
# each mode), and the GPU tests call 2 failed on.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt; nproc >> $OUT/gpu.txt
J=${JOBS:-16}; M=${MIN:-1.5}
timeout 200 python3 -m tools.fuzz_elimination --opencl --platform pocl --jobs $J --count 100000 --seed 200000 --minutes $M > $OUT/fz-opencl.log 2>&1; echo "rc=$?" >> $OUT/fz-opencl.log
timeout 200 python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --jobs $J --count 100000 --seed 300000 --minutes $M > $OUT/fz-launch.log 2>&1; echo "rc=$?" >> $OUT/fz-launch.log
timeout 120 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 100 -rfE tests/numba/test_call_facts.py tests/numba/test_body_versioning.py > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log
tail -3 $OUT/fz-opencl.log $OUT/fz-launch.log; tail -2 $OUT/gpu-tests.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
