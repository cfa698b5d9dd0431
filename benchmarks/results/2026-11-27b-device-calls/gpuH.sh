#!/usr/bin/env bash
# Session 2026-11-27b call 1: every gpu test, numba-cuda suite, CuPy test_raw.py peer check at the current commit.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
( timeout 470 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 240 -rfE tests --ignore tests/bench > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log ) &
( timeout 470 python3 tools/numba_suite.py --workers 7 --timeout 250 --deadline 430 --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log ) &
( timeout 330 python3 tools/cupy_suite.py --workdir /tmp/cupysuite --timeout 250 --table $OUT/cupy-table.md --json $OUT/cupy.json > $OUT/cupy-suite.log 2>&1; echo "rc=$?" >> $OUT/cupy-suite.log ) &
wait
echo "=== gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-tests.log | cut -c1-250 | head -30; tail -3 $OUT/gpu-tests.log
echo "=== numba"; tail -14 $OUT/numba-suite.log
echo "=== cupy"; tail -8 $OUT/cupy-suite.log
mkdir -p /tmp/o/work; cp /tmp/cupyx/*.log /tmp/cupysuite/*.log /tmp/o/work/ 2>/dev/null
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls -la /tmp/o | head -40
