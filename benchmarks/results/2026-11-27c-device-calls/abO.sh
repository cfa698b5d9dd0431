#!/usr/bin/env bash
# Session 2026-11-27c call 8: OpenCL BFS check variants and hotspot's launches (tools/opencl_variant_ab.py).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout 200 python3 tools/opencl_variant_ab.py --rounds 9 --out $OUT/ocl-ab.md > $OUT/ocl-ab.log 2>&1; echo "rc=$?" >> $OUT/ocl-ab.log
cat $OUT/ocl-ab.md | cut -c1-260; tail -5 $OUT/ocl-ab.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
