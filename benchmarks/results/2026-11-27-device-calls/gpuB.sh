#!/usr/bin/env bash
# Call 2: cupyx's tests plain vs safekern (issue 30), PyOpenCL's suite on NVIDIA in three modes (issue 24):
# six OpenCL processes at most (eighteen ran NVIDIA's OpenCL out of host memory once).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
( timeout 480 python3 tools/cupyx_suite.py --workdir /tmp/cupyx --shards 5 --timeout 465 --json $OUT/cupyx.json > $OUT/cupyx-suite.log 2>&1; echo "rc=$?" >> $OUT/cupyx-suite.log ) &
T=.pyopencl-tests/2026.1.4
mkdir -p $OUT/ocl
for m in plain user all; do
  XDG_CACHE_HOME=/tmp/xdg-$m-a timeout 480 python3 tools/opencl_suite.py --platform nvidia --tests-dir $T --modes $m --deadline 460 --timeout 460 --json $OUT/ocl/$m-a.json test_array test_clmath > $OUT/ocl/$m-a.log 2>&1 &
  XDG_CACHE_HOME=/tmp/xdg-$m-b timeout 480 python3 tools/opencl_suite.py --platform nvidia --tests-dir $T --modes $m --deadline 460 --timeout 460 --json $OUT/ocl/$m-b.json test_algorithm test_wrapper test_enqueue_copy test_arrays_in_structs test_clrandom > $OUT/ocl/$m-b.log 2>&1 &
done
wait
python3 tools/opencl_suite.py --merge $OUT/ocl/*.json --table $OUT/ocl-table.md > $OUT/ocl-merged.txt 2>&1
echo "=== ocl"; tail -30 $OUT/ocl-merged.txt
echo "=== cupyx"; tail -20 $OUT/cupyx-suite.log
mkdir -p /tmp/o/work; cp /tmp/cupyx/*.log /tmp/cupysuite/*.log /tmp/o/work/ 2>/dev/null
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls -la /tmp/o | head -40
