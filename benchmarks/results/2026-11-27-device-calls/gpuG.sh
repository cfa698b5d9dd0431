#!/usr/bin/env bash
# The last call: host time per launch and the C benchmarks on a quiet machine first, then the SVM
# probe on NVIDIA's OpenCL, then cupyx's test files the first run cut off, plain vs safekern.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o5; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
timeout 80 python3 -m benchmarks --only vector_add --languages numba --modes unchecked,checked --reps 1 --warmup 0 --compile-reps 0 --host-batches 9 --out $OUT/host > $OUT/host.log 2>&1
echo "host rc=$?" >> $OUT/host.log
timeout ${CBENCH_T:-150} python3 -m benchmarks --languages cupy,opencl --modes unchecked,checked --reps 3 --no-host --compile-reps 0 --out $OUT/c > $OUT/bench-c.log 2>&1
echo "c rc=$?" >> $OUT/bench-c.log
timeout 60 python3 .wt/lead2/svm_probe.py > $OUT/svm.log 2>&1; echo "svm rc=$?" >> $OUT/svm.log
( timeout 240 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/cupy tests/opencl/test_loop_versions_opencl.py tests/opencl/test_failure_sources_released.py tests/numba/test_plain_launches.py > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log ) &
C=${CUPYX_T:-200}
timeout $((C+20)) python3 tools/cupyx_suite.py --workdir /tmp/cupyx2 --shards 8 --timeout $C --json $OUT/cupyx2.json \
  test_csc.py test_morphology.py test_bspline2.py test_bspline.py test_radartools.py test_splines.py \
  test_polyint.py test_filters.py test_ndbspline.py test_distance_transform.py test_bsplines.py test_delaunay.py \
  test_ppoly.py test_interpolation.py test_iir_utils.py test_kdtree.py test_interpnd.py > $OUT/cupyx2.log 2>&1
echo "rc=$?" >> $OUT/cupyx2.log
wait
mkdir -p $OUT/work; for f in /tmp/cupyx2/*.log; do tail -n 4 $f > $OUT/work/$(basename $f); done
echo "=== host"; grep -i "host" $OUT/host.log | head
echo "=== c"; grep -v Warning $OUT/bench-c.log | tail -32
echo "=== svm"; grep -v "^  \|Traceback\|^    " $OUT/svm.log | head -20
echo "=== cupyx"; tail -12 $OUT/cupyx2.log
echo "=== gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-tests.log | cut -c1-250; tail -2 $OUT/gpu-tests.log
cd /tmp/o5 && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o5
