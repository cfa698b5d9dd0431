#!/usr/bin/env bash
# local fuzz in a worktree of the commit, each mode --jobs 1, niced: run.sh SEED_OPENCL SEED_LAUNCH MINUTES
cd /work/wt-fz
export PYTHONPATH=$PWD OCL_ICD_VENDORS=/etc/OpenCL/vendors OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1 PYTHONUNBUFFERED=1
nice -n 19 /work/main/.venv/bin/python -m tools.fuzz_elimination --opencl --platform pocl --count 10000000 --seed $1 --minutes $3 --out /work/fzlog/differing 2>&1 | grep --line-buffered -v "warning" > /work/fzlog/opencl-$1.log &
nice -n 19 /work/main/.venv/bin/python -m tools.fuzz_elimination --opencl-launch --platform pocl --count 10000000 --seed $2 --minutes $3 --out /work/fzlog/differing 2>&1 | grep --line-buffered -v "warning" > /work/fzlog/launch-$2.log &
wait
