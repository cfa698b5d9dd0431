#!/usr/bin/env bash
# Session 2026-11-27d call 2: numba register cap A/B (SAFEKERN_AB_OCC=0/1, SAFEKERN_AB_SPILL) x deferred record (SAFEKERN_AB_DEFER), runs alternating.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld SAFEKERN_LOG=debug
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only rw_perlin,rw_fbpic_gather,rw_fbpic_deposit,spmv_csr,lud,srad,rw_pairs_chop,bfs_step"
for i in 1 2; do for v in "0 16 0" "1 16 0" "1 128 0" "1 16 1"; do set -- $v
  SAFEKERN_AB_OCC=$1 SAFEKERN_AB_SPILL=$2 SAFEKERN_AB_DEFER=$3 timeout 70 python3 -m benchmarks $N --out $OUT/o$1s$2d$3-$i > $OUT/o$1s$2d$3-$i.log 2>&1; echo "rc=$?" >> $OUT/o$1s$2d$3-$i.log
done; done
for f in $OUT/*-1.log $OUT/*-2.log; do echo "== $f"; grep -E "x\)$|rc=" $f | tail -9 | cut -c1-100; grep -h "registers ->\|not taken" $f | sort | uniq | cut -c1-160 | head -12; done
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o | head -3
