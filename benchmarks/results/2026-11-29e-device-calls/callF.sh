#!/usr/bin/env bash
# Session 2026-11-29e call F (one H200): the final code's exit-mode and report tests on the GPU
# (the per-site exit test added with call D's experiment, kept after its revert; race rows'
# columns).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba/test_exit_at_check.py tests/numba/test_numba_report.py tests/numba/test_numba_ptx.py -rfE > $OUT/pytest-gpu-exit.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-exit.log
tail -n 4 $OUT/pytest-gpu-exit.log
