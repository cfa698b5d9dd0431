#!/usr/bin/env bash
# Session 2026-11-28c call (2 H100s, 32 cores): at once, (1) pytest -m gpu tests/cupy tests/opencl
# (GPU TGPU), (2) the C benchmarks (GPU BGPU), (3) seed 254687687 alone on the machine's PoCL with
# its IR kept, (4) the C differential fuzzers on PoCL (FUZZJ processes a mode), MIN minutes, seeds
# OSEED / LSEED. NOTESTS=1: only the fuzzers.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
{ nvidia-smi -L; cat .wt/lead3/commit; echo "cores $N"; date -u; } > $OUT/gpu.txt
FZ="OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1"
if [ -z "$NOTESTS" ]; then
( CUDA_VISIBLE_DEVICES=${BGPU:-1} timeout ${BENCH_T:-330} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c-final > $OUT/bench-c-final.log 2>&1; echo "rc=$?" >> $OUT/bench-c-final.log ) &
( CUDA_VISIBLE_DEVICES=${TGPU:-0} timeout ${TESTS_T:-450} python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/cupy tests/opencl > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log ) &
( env $FZ POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=$OUT/seed/pc POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1 timeout 200 python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --count 1 --seed 254687687 --out $OUT/seed/differing > $OUT/seed.log 2>&1; echo "rc=$?" >> $OUT/seed.log; clinfo 2>/dev/null | grep -iE "platform version|device version|llvm" | head >> $OUT/seed.log; find $OUT/seed/pc -name "*.bc" | head -40 | while read f; do llvm-dis-15 "$f" -o "$f.ll" 2>/dev/null || llvm-dis "$f" -o "$f.ll" 2>/dev/null; done; du -sh $OUT/seed >> $OUT/seed.log ) &
fi
J=${FUZZJ:-13}; M=${MIN:-8}
( env $FZ python3 -m tools.fuzz_elimination --opencl --platform pocl --jobs $J --count 10000000 --seed ${OSEED} --minutes $M --out $OUT/differing > $OUT/fz-opencl.log 2>&1; echo "rc=$?" >> $OUT/fz-opencl.log ) &
( env $FZ python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --jobs $J --count 10000000 --seed ${LSEED} --minutes $M --out $OUT/differing > $OUT/fz-launch.log 2>&1; echo "rc=$?" >> $OUT/fz-launch.log ) &
wait
for f in $OUT/fz-*.log $OUT/seed.log; do grep -v "warning gen" $f > $f.x && mv $f.x $f; done
tail -n 2 $OUT/fz-opencl.log $OUT/fz-launch.log; tail -n 4 $OUT/seed.log; tail -n 3 $OUT/gpu-tests.log 2>/dev/null; grep -E "geomean|worst|rc=" $OUT/bench-c-*.log 2>/dev/null | tail -12; cat $OUT/gpu.txt
rm -f $OUT/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
