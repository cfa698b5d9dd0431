#!/usr/bin/env bash
# Session 2026-11-27c call 12: at the final commit, the numba GPU tests and numba-cuda's suite (the one
# safekern change after call 9: dispatch's _compile_plain).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
T=285
( timeout $T python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/numba tests/cache > $OUT/gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/gpu-numba.log ) &
( timeout $T python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline $((T-25)) --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log ) &
wait
echo "=== gpu tests numba+cache"; grep "^FAILED\|^ERROR" $OUT/gpu-numba.log | cut -c1-250 | head; tail -2 $OUT/gpu-numba.log
echo "=== numba suite"; tail -5 $OUT/numba-suite.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
