#!/usr/bin/env bash
# Session 2026-11-27c call 9: OpenCL A/B and OpenCL host per launch, then every GPU test, numba-cuda's
# suite and CuPy's test_raw.py at the merged code.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
timeout 100 python3 tools/opencl_variant_ab.py --rounds 9 --out $OUT/ocl-ab.md > $OUT/ocl-ab.log 2>&1; echo "rc=$?" >> $OUT/ocl-ab.log
timeout 50 python3 tools/opencl_launch_host.py hotspot spmv_csr > $OUT/ocl-host.log 2>&1; echo "rc=$?" >> $OUT/ocl-host.log
T=${TESTS_T:-285}
P="python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE"
( timeout $T $P tests/numba > $OUT/gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/gpu-numba.log ) &
( timeout $T $P tests --ignore tests/numba --ignore tests/opencl --ignore tests/bench > $OUT/gpu-rest.log 2>&1; echo "rc=$?" >> $OUT/gpu-rest.log ) &
( timeout $T $P tests/opencl > $OUT/gpu-opencl.log 2>&1; echo "rc=$?" >> $OUT/gpu-opencl.log ) &
( timeout $T python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline $((T-25)) --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log ) &
( timeout 250 python3 tools/cupy_suite.py --workdir /tmp/cupysuite --timeout 200 --table $OUT/cupy-table.md --json $OUT/cupy.json > $OUT/cupy-suite.log 2>&1; echo "rc=$?" >> $OUT/cupy-suite.log ) &
wait
grep -E "^\| (variant|plain|current|precheck|safekern|checked)" $OUT/ocl-ab.md | cut -c1-140; tail -3 $OUT/ocl-ab.log
echo "=== ocl host"; tail -8 $OUT/ocl-host.log
for f in numba rest opencl; do echo "=== gpu tests $f"; grep "^FAILED\|^ERROR" $OUT/gpu-$f.log | cut -c1-250 | head -20; tail -2 $OUT/gpu-$f.log; done
echo "=== numba suite"; tail -6 $OUT/numba-suite.log
echo "=== cupy"; tail -4 $OUT/cupy-suite.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
