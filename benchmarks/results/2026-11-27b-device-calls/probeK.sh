#!/usr/bin/env bash
# Probe: the 32-bit int index check (CUDA __sk_ix since 1dae506; OpenCL __sk_ix32, uncommitted) against the 64-bit one, A B A.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors SAFEKERN_CACHE=off
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt; git diff --stat >> $OUT/gpu.txt 2>&1
C="--languages cupy,opencl --only gather_scatter,spmv_csr,bfs_step,histogram --modes unchecked,checked --reps 5 --compile-reps 0 --no-host"
timeout 100 python3 -m benchmarks $C --out /tmp/o/a32 > $OUT/a32.log 2>&1; echo "rc=$?" >> $OUT/a32.log
timeout 100 python3 .wt/lead2/ix64.py $C --out /tmp/o/b64 > $OUT/b64.log 2>&1; echo "rc=$?" >> $OUT/b64.log
timeout 100 python3 -m benchmarks $C --out /tmp/o/c32 > $OUT/c32.log 2>&1; echo "rc=$?" >> $OUT/c32.log
for f in a32 b64 c32; do echo "== $f"; grep -E "x\)$|rc=" $OUT/$f.log; done
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz .
