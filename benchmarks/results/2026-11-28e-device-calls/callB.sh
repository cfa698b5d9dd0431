#!/usr/bin/env bash
# Session 2026-11-28e call B (2 GPUs, 32 cores): seed 543077073 examined on PoCL 5.0 (the two
# builds' failures and differing outputs, optimised and not), then the C fuzzers on cores 4-31.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
FZ="OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1"
( for i in 1 2 3; do env $FZ taskset -c 0-3 timeout 120 python3 .wt/lead5/diag.py .wt/lead5/cases/lfuzz_543077073.cl 2>&1 | grep -v -i warn; done > $OUT/diag.log; echo "rc=$?" >> $OUT/diag.log ) &
OSEED=$1 LSEED=$2 MIN=${MIN:-8} FUZZJ=${FUZZJ:-13} NOEXTRA=1 taskset -c 4-$((N-1)) bash .wt/lead3/callC.sh > $OUT/fuzz-summary.log 2>&1
wait
cut -c1-600 $OUT/diag.log; tail -n 12 $OUT/fuzz-summary.log
