#!/usr/bin/env bash
# Session 2026-11-28 call 3 (4 H100s, 64 cores): at once, (1) the C benchmarks before (8ca235a, GPU 1)
# and after (the commit in .wt/lead3/commit, GPU 2) the int-index fix, modes interleaved in each;
# (2) the GPU tests of tests/cupy and tests/opencl (GPU 3); (3) the C differential fuzzers on the
# machine's PoCL on the other cores (FUZZJ processes a mode), MIN minutes.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
{ nvidia-smi -L; cat .wt/lead3/commit; echo "cores $N"; } > $OUT/gpu.txt
ROOT=$PWD
( cd .wt/bis/pre && CUDA_VISIBLE_DEVICES=1 PYTHONPATH=$ROOT/.wt/bis/pre:/tmp/site:$ROOT/.wt/lead/.gpu-py timeout ${BENCH_T:-300} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c-pre > $OUT/bench-c-pre.log 2>&1; echo "rc=$?" >> $OUT/bench-c-pre.log ) &
( CUDA_VISIBLE_DEVICES=2 timeout ${BENCH_T:-300} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c-new > $OUT/bench-c-new.log 2>&1; echo "rc=$?" >> $OUT/bench-c-new.log ) &
( CUDA_VISIBLE_DEVICES=3 timeout ${TESTS_T:-420} python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/cupy tests/opencl > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log ) &
J=${FUZZJ:-26}; M=${MIN:-8}
( export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
  python3 -m tools.fuzz_elimination --opencl --platform pocl --jobs $J --count 10000000 --seed ${OSEED} --minutes $M --out $OUT/differing > $OUT/fz-opencl.log 2>&1; echo "rc=$?" >> $OUT/fz-opencl.log ) &
( export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
  python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --jobs $J --count 10000000 --seed ${LSEED} --minutes $M --out $OUT/differing > $OUT/fz-launch.log 2>&1; echo "rc=$?" >> $OUT/fz-launch.log ) &
wait
for f in $OUT/fz-*.log; do grep -v "warning gen" $f > $f.x && mv $f.x $f; done
tail -n 2 $OUT/fz-opencl.log $OUT/fz-launch.log; tail -n 3 $OUT/gpu-tests.log; grep -E "geomean|worst|rc=" $OUT/bench-c-*.log | tail -12; cat $OUT/gpu.txt
rm -f $OUT/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
