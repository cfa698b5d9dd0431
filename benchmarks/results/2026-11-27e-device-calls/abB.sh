#!/usr/bin/env bash
# Session 2026-11-27e call 2: body versioning (SAFEKERN_AB_BODYVER=1) vs without (=0), modes interleaved,
# two rounds; then the new GPU tests.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only $(cat .wt/lead3/cases)"
for i in 1 2; do for v in 0 1; do
  SAFEKERN_AB_BODYVER=$v timeout 100 python3 -m benchmarks $N --out $OUT/bv$v-$i > $OUT/bv$v-$i.log 2>&1; echo "rc=$?" >> $OUT/bv$v-$i.log
done; done
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 120 -rfE tests/numba/test_body_versioning.py tests/numba/test_call_facts.py tests/numba/test_numba_kernels.py > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log
for f in bv0-1 bv1-1 bv0-2 bv1-2; do echo "== $f"; grep -E "x\)$|rc=" $OUT/$f.log | tail -14 | cut -c1-100; done
echo "== gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-tests.log | cut -c1-250 | head -20; tail -2 $OUT/gpu-tests.log
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o | head -3
