#!/usr/bin/env bash
# Session 2026-11-28e call C (2 GPUs, 32 cores): seed 543077073's launch 2 run with plain PyOpenCL on
# safekern's built texts and the user's source (PoCL 5.0 optimised / unoptimised, NVIDIA OpenCL),
# then the C fuzzers on cores 4-31.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
FZ="OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1"
( env $FZ taskset -c 0-3 timeout 200 python3 .wt/lead5/diag2.py pocl nvidia > $OUT/diag2.log 2>&1; echo "rc=$?" >> $OUT/diag2.log
  env $FZ taskset -c 0-3 timeout 100 python3 .wt/lead5/diag2.py pocl >> $OUT/diag2.log 2>&1; echo "rc=$?" >> $OUT/diag2.log
  clinfo 2>/dev/null | grep -iE "platform version|device version|driver version" | head -8 >> $OUT/diag2.log ) &
OSEED=$1 LSEED=$2 MIN=${MIN:-7} FUZZJ=${FUZZJ:-13} NOEXTRA=1 taskset -c 4-$((N-1)) bash .wt/lead3/callC.sh > $OUT/fuzz-summary.log 2>&1
wait
cut -c1-330 $OUT/diag2.log; tail -n 12 $OUT/fuzz-summary.log
