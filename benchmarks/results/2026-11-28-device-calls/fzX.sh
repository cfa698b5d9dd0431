#!/usr/bin/env bash
# Session 2026-11-28 calls: (PROFILE=1) the GPU compile profile of the numba cases that cost the most
# compile time, while the CPU is idle; then the C differential fuzzers on the machine's PoCL, every
# core, both modes at once (half the processes each), MIN minutes; seeds from OSEED (--opencl) and
# LSEED (--opencl-launch). One thread a process for BLAS and PoCL (64 processes).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
N=$(nproc --all)   # (before OMP_NUM_THREADS: nproc honours it)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
{ nvidia-smi -L; cat .wt/lead3/commit; nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket"; } > $OUT/gpu.txt
if [ -n "$PROFILE" ]; then
  SAFEKERN_BENCH_REALWORLD=.realworld timeout 150 python3 -m tools.gpu_compile_profile --reps 2 --top 40 $PROFILE > $OUT/compile-profile.txt 2>&1; echo "rc=$?" >> $OUT/compile-profile.txt
  grep "^==" $OUT/compile-profile.txt
fi
J=$(( (N - ${SPARE:-0}) / 2 )); M=${MIN:-8.5}
if [ -n "$GPUTESTS" ]; then { timeout $GPUTESTS python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/opencl > $OUT/gpu-opencl.log 2>&1; echo "rc=$?" >> $OUT/gpu-opencl.log; } & fi
python3 -m tools.fuzz_elimination --opencl --platform pocl --jobs $J --count 10000000 --seed ${OSEED} --minutes $M --out $OUT/differing > $OUT/fz-opencl.log 2>&1 &
P1=$!
python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --jobs $J --count 10000000 --seed ${LSEED} --minutes $M --out $OUT/differing > $OUT/fz-launch.log 2>&1 &
P2=$!
wait $P1; echo "rc=$?" >> $OUT/fz-opencl.log
wait $P2; echo "rc=$?" >> $OUT/fz-launch.log
wait; tail -n 3 $OUT/fz-opencl.log $OUT/fz-launch.log; tail -n 3 $OUT/gpu-opencl.log; cat $OUT/gpu.txt
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
