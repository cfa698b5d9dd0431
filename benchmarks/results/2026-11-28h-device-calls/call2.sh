#!/usr/bin/env bash
# Session 2026-11-28h call 2 (one H200): numba's GPU tests, then numba-cuda's own suite with
# safekern.jit for every caller (tools/numba_suite.py), at the code of this session.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 170 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
tail -n 4 $OUT/pytest-gpu-numba.log
timeout 380 python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline 355 --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
tail -n 25 $OUT/numba-suite.log
