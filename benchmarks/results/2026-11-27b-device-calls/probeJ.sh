#!/usr/bin/env bash
# Probe: which commit made numba spmv_csr / rw_fbpic_gather / bfs_step slower; CuPy bfs_step with and without the guarded loop.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
ROOT=$PWD; REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; git -C $ROOT rev-parse --short HEAD >> $OUT/gpu.txt 2>/dev/null; cat .wt/lead2/commit >> $OUT/gpu.txt
N="--languages numba --only spmv_csr,bfs_step,rw_fbpic_gather --modes unchecked,checked --reps 5 --compile-reps 0 --no-host"
C="--languages cupy --only bfs_step,spmv_csr --modes unchecked,checked --reps 5 --compile-reps 0 --no-host"
for t in n0 n1 n2 n3 n4; do
  (cd .wt/bis/$t && timeout 60 python3 -m benchmarks $N --out /tmp/o/$t > $OUT/$t.log 2>&1; echo "rc=$?" >> $OUT/$t.log)
done
timeout 60 python3 -m benchmarks $N --out /tmp/o/cur > $OUT/cur.log 2>&1; echo "rc=$?" >> $OUT/cur.log
(cd .wt/bis/c0 && timeout 60 python3 -m benchmarks $C --out /tmp/o/c0 > $OUT/c0.log 2>&1; echo "rc=$?" >> $OUT/c0.log)
timeout 60 python3 -m benchmarks $C --out /tmp/o/ccur > $OUT/ccur.log 2>&1; echo "rc=$?" >> $OUT/ccur.log
timeout 60 python3 .wt/lead2/noguard.py $C --out /tmp/o/cng > $OUT/cng.log 2>&1; echo "rc=$?" >> $OUT/cng.log
for f in n0 n1 n2 n3 n4 cur c0 ccur cng; do echo "== $f $(cat .wt/bis/$f/commit 2>/dev/null)"; grep -E "x\)$|rc=" $OUT/$f.log; done
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . 
