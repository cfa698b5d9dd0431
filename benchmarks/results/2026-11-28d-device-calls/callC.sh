#!/usr/bin/env bash
# Session 2026-11-28c call 2/3 (32 cores): the C differential fuzzers on the machine's PoCL 5.0
# (FUZZJ processes a mode, MIN minutes, seeds OSEED / LSEED), the overflow kernels (seed VSEED),
# seed 254687687 alone with its IR, and the PoCL half of tests/opencl/test_opencl_int_index.py.
. .gpu/bootstrap.sh
N=$(nproc --all)
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
{ nvidia-smi -L; cat .wt/lead3/commit; echo "cores $N"; date -u; } > $OUT/gpu.txt
FZ="OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1"
J=${FUZZJ:-14}; M=${MIN:-8}
if [ -z "$NOEXTRA" ]; then
( env $FZ POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=$OUT/seed/pc POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1 timeout 200 python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --count 1 --seed 254687687 --out $OUT/seed/differing > $OUT/seed.log 2>&1; echo "rc=$?" >> $OUT/seed.log; find $OUT/seed/pc -name "*.bc" | head -40 | while read f; do llvm-dis-16 "$f" -o "$f.ll" 2>/dev/null || llvm-dis "$f" -o "$f.ll" 2>/dev/null; done; du -sh $OUT/seed >> $OUT/seed.log
  env $FZ timeout 150 python3 -m pytest -q -p no:cacheprovider -m "not gpu" -rfE tests/opencl/test_opencl_int_index.py > $OUT/pocl-tests.log 2>&1; echo "rc=$?" >> $OUT/pocl-tests.log ) &
( env $FZ python3 -m tools.fuzz_elimination --overflow --platform pocl --jobs 1 --count 10000000 --seed ${VSEED} --minutes $M > $OUT/fz-overflow.log 2>&1; echo "rc=$?" >> $OUT/fz-overflow.log ) &
fi
( env $FZ python3 -m tools.fuzz_elimination --opencl --platform pocl --jobs $J --count 10000000 --seed ${OSEED} --minutes $M --out $OUT/differing > $OUT/fz-opencl.log 2>&1; echo "rc=$?" >> $OUT/fz-opencl.log ) &
( env $FZ python3 -m tools.fuzz_elimination --opencl-launch --platform pocl --jobs $J --count 10000000 --seed ${LSEED} --minutes $M --out $OUT/differing > $OUT/fz-launch.log 2>&1; echo "rc=$?" >> $OUT/fz-launch.log ) &
wait
for f in $OUT/*.log; do grep -v "warning gen" $f > $f.x && mv $f.x $f; done
tail -n 2 $OUT/fz-*.log; tail -n 4 $OUT/seed.log $OUT/pocl-tests.log 2>/dev/null; cat $OUT/gpu.txt
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
