#!/usr/bin/env bash
# Session 2026-11-27c call 3: CUDA C SpMV/BFS check variants, A/B in one run (tools/c_variant_ab.py).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout 200 python3 tools/c_variant_ab.py --rounds 9 --out $OUT/ab.md > $OUT/ab.log 2>&1; echo "rc=$?" >> $OUT/ab.log
cat $OUT/ab.md | head -80; tail -5 $OUT/ab.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
