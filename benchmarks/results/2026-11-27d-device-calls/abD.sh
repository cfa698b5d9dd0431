#!/usr/bin/env bash
# Session 2026-11-27d call 1: numba deferred-record A/B (SAFEKERN_AB_DEFER=0/1/2 on branch abdefer), runs alternating.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only rw_perlin,rw_fbpic_gather,spmv_csr,bfs_step,backprop,pathfinder,rw_pairs_brute,rw_stump,rw_convolve_2d,rw_fbpic_deposit"
for i in 1 2; do for d in 0 1 2; do
  SAFEKERN_AB_DEFER=$d timeout 75 python3 -m benchmarks $N --out $OUT/d$d-$i > $OUT/d$d-$i.log 2>&1; echo "rc=$?" >> $OUT/d$d-$i.log
done; done
SAFEKERN_AB_DEFER=1 timeout 150 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --out $OUT/full1 > $OUT/full1.log 2>&1; echo "rc=$?" >> $OUT/full1.log
for f in d0-1 d1-1 d2-1 d0-2 d1-2 d2-2; do echo "== $f"; grep -E "x\)$|rc=" $OUT/$f.log | tail -11 | cut -c1-110; done
echo "== full1"; grep -E "geomean|goal|rc=" $OUT/full1.log | tail -8
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
