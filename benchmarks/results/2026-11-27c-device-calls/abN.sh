#!/usr/bin/env bash
# Session 2026-11-27c call 5: CUDA C variants A/B at the new C checks; numba nbfs6 A/B (trees:
# .wt/bis/pre = dfbd55c, before nbfs6's merge; . = HEAD), runs alternating; GPU tests of the changes;
# the C benchmarks.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
R=$PWD; REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout 100 python3 tools/c_variant_ab.py --rounds 9 --out $OUT/ab.md > $OUT/ab.log 2>&1; echo "rc=$?" >> $OUT/ab.log
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only bfs_step,spmv_csr,rw_perlin,rw_pairs_brute,rw_pairs_chop,rw_stump"
for i in 1 2; do for t in pre now; do d=$R; [ $t = pre ] && d=$R/.wt/bis/pre
  (cd $d && SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$R/.realworld timeout 80 python3 -m benchmarks $N --out $OUT/$t-$i > $OUT/$t-$i.log 2>&1; echo "rc=$?" >> $OUT/$t-$i.log)
done; done
timeout 120 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 100 -rfE tests/cupy/test_int_index_cuda_gpu.py tests/cupy/test_struct_fields_gpu.py tests/numba/test_exit_at_check.py tests/cupy/test_loops_that_store.py tests/cupy/test_loop_versions.py > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log
timeout 120 python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c > $OUT/bench-c.log 2>&1; echo "c rc=$?" >> $OUT/bench-c.log
grep -A12 "### bfs_step" $OUT/ab.md | cut -c1-120; grep "current\|fallback" $OUT/ab.md | head -3 | cut -c1-100
for f in pre-1 now-1 pre-2 now-2; do echo "== $f"; grep -E "x\)$|rc=" $OUT/$f.log | tail -8; done
echo "== gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-tests.log | cut -c1-200 | head; tail -2 $OUT/gpu-tests.log
echo "=== c"; grep -E "x\)$|geomean|rc=" $OUT/bench-c.log | tail -30
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
