#!/usr/bin/env bash
# Session 2026-11-28b call A (4 H100s, 64 cores): at once, (1) pytest -m gpu tests/cupy tests/opencl
# (GPU 3), (2) the C benchmarks at the final code (GPU 2), (3) the C differential fuzzers on the
# machine's PoCL on the other cores (FUZZJ processes a mode), MIN minutes, seeds OSEED / LSEED.
# With NOTESTS=1 only the fuzzers run (every core: FUZZJ=32).
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
{ nvidia-smi -L; cat .wt/lead3/commit; git log --oneline -1 2>/dev/null; echo "cores $N"; } > $OUT/gpu.txt
if [ -z "$NOTESTS" ]; then
( CUDA_VISIBLE_DEVICES=2 timeout ${BENCH_T:-330} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c-final > $OUT/bench-c-final.log 2>&1; echo "rc=$?" >> $OUT/bench-c-final.log ) &
( CUDA_VISIBLE_DEVICES=3 timeout ${TESTS_T:-420} python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/cupy tests/opencl > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log ) &
fi
J=${FUZZJ:-27}; M=${MIN:-8}
( export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
  python3 -m tools.fuzz_elimination --opencl --platform pocl --jobs $J --count 10000000 --seed ${OSEED} --minutes $M --out $OUT/differing > $OUT/fz-opencl.log 2>&1; echo "rc=$?" >> $OUT/fz-opencl.log ) &
( export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
  python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --jobs $J --count 10000000 --seed ${LSEED} --minutes $M --out $OUT/differing > $OUT/fz-launch.log 2>&1; echo "rc=$?" >> $OUT/fz-launch.log ) &
wait
for f in $OUT/fz-*.log; do grep -v "warning gen" $f > $f.x && mv $f.x $f; done
tail -n 2 $OUT/fz-opencl.log $OUT/fz-launch.log; tail -n 3 $OUT/gpu-tests.log 2>/dev/null; grep -E "geomean|worst|rc=" $OUT/bench-c-*.log 2>/dev/null | tail -12; cat $OUT/gpu.txt
rm -f $OUT/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
