#!/usr/bin/env bash
# Probe (nreg5): numba spmv/bfs/fbpic at main now, and with ncompile2's record lowering put back (010b1c0 + 141ff6c undone).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
N="--languages numba --only spmv_csr,bfs_step,rw_fbpic_gather --modes unchecked,checked --reps 5 --compile-reps 0 --no-host"
P=benchmarks/results/2026-11-27-numba-regressions
timeout 80 python3 -m benchmarks $N --out /tmp/o/now > $OUT/now.log 2>&1; echo "rc=$?" >> $OUT/now.log
SK_OLD_IDS=1 SK_OLD_RECORDS=1 timeout 80 python3 $P/old_lowering.py $N --out /tmp/o/both > $OUT/both.log 2>&1; echo "rc=$?" >> $OUT/both.log
SK_OLD_IDS=1 timeout 80 python3 $P/old_lowering.py $N --out /tmp/o/ids > $OUT/ids.log 2>&1; echo "rc=$?" >> $OUT/ids.log
for f in now both ids; do echo "== $f"; grep -E "x\)$|rc=|Error" $OUT/$f.log | tail -5; done
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz .
