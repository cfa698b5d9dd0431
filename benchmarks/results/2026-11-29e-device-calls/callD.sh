#!/usr/bin/env bash
# Session 2026-11-29e call D (one H200, 16 cores): after the checks that end the thread record
# in one block per function (exit_block.py): numba-cuda's own suite under safekern.jit and
# safekern's own GPU tests of the numba backend, in parallel lanes.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
( taskset -c 0-4 timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log ) &
taskset -c 5-15 timeout 480 python3 tools/numba_suite.py --workers 11 --timeout 200 --deadline 450 --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
wait
cd $OUT && tail -n 4 pytest-gpu-numba.log; tail -n 12 numba-suite.log
