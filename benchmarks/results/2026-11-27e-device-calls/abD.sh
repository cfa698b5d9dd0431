#!/usr/bin/env bash
# Session 2026-11-27e call 5: which of ccomp's two changes moved spmv_csr (0.97 -> 1.21 in call 4): main
# (.wt/bis/pre = 92a8df8) vs int (a38ad52, both) vs coldonly (a38ad52 with 92a8df8's lowering.py: old
# record) vs reconly (a38ad52 without the _sk_cold marks), two rounds.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
R=$PWD; REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only spmv_csr,rw_perlin,bfs_step,srad,lud,rw_pairs_chop"
for i in 1 2; do for v in pre int coldonly reconly; do d=$R; [ $v != int ] && d=$R/.wt/bis/$v
  (cd $d && timeout 100 python3 -m benchmarks $N --out $OUT/$v-$i > $OUT/$v-$i.log 2>&1; echo "rc=$?" >> $OUT/$v-$i.log)
done; done
for i in 1 2; do for v in pre int coldonly reconly; do echo "== $v-$i"; grep -E "x\)$|rc=" $OUT/$v-$i.log | tail -7 | sed 's/: unchecked.*(/ (/' | tr '\n' ' '; echo; done; done
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o | head -3
