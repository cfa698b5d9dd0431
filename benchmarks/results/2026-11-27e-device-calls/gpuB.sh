#!/usr/bin/env bash
# Session 2026-11-27e call 7: the submitted code: every GPU test, numba-cuda's suite under safekern.jit,
# CuPy's test_raw.py under safekern.cupy, in parallel.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
T=${TESTS_T:-480}
P="python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE"
( timeout $T $P tests/numba > $OUT/gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/gpu-numba.log ) &
( timeout $T $P tests --ignore tests/numba --ignore tests/opencl --ignore tests/bench > $OUT/gpu-rest.log 2>&1; echo "rc=$?" >> $OUT/gpu-rest.log ) &
( timeout $T $P tests/opencl > $OUT/gpu-opencl.log 2>&1; echo "rc=$?" >> $OUT/gpu-opencl.log ) &
( timeout $T python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline $((T-25)) --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log ) &
( timeout $T python3 tools/cupy_suite.py --workdir /tmp/cupysuite --timeout 200 --table $OUT/cupy-table.md --json $OUT/cupy.json > $OUT/cupy-suite.log 2>&1; echo "rc=$?" >> $OUT/cupy-suite.log ) &
wait
for f in numba rest opencl; do echo "=== gpu tests $f"; grep "^FAILED\|^ERROR" $OUT/gpu-$f.log | cut -c1-250 | head -20; tail -2 $OUT/gpu-$f.log; done
echo "=== numba suite"; tail -6 $OUT/numba-suite.log
echo "=== cupy"; tail -4 $OUT/cupy-suite.log
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
