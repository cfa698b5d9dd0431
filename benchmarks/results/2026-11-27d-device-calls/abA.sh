#!/usr/bin/env bash
# Session 2026-11-27d call 4: numba failure record as one inline asm LLVM sees as touching no memory (+ pending placement
# for rows of private arrays) vs main (.wt/bis/pre = acbf829), register cap on/off; then the numba GPU tests.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
R=$PWD; REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only rw_perlin,rw_fbpic_gather,rw_fbpic_deposit,spmv_csr,bfs_step,rw_pairs_chop,rw_pairs_brute,histogram,gather_scatter,rw_stump,lud,srad"
for i in 1 2; do for v in pre occ0 occ1; do d=$R; [ $v = pre ] && d=$R/.wt/bis/pre
  (cd $d && SAFEKERN_AB_OCC=${v#occ} timeout 75 python3 -m benchmarks $N --out $OUT/$v-$i > $OUT/$v-$i.log 2>&1; echo "rc=$?" >> $OUT/$v-$i.log)
done; done
timeout 200 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 150 -rfE tests/numba > $OUT/gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/gpu-numba.log
for f in pre-1 occ0-1 occ1-1 pre-2 occ0-2 occ1-2; do echo "== $f"; grep -E "x\)$|rc=" $OUT/$f.log | tail -13 | cut -c1-100; done
echo "== gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-numba.log | cut -c1-250 | head -20; tail -2 $OUT/gpu-numba.log
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o | head -3
