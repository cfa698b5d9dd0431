#!/usr/bin/env bash
# Session 2026-11-29d call D (one H200): numba-cuda's own suite under safekern after the fix of
# call C's one regression (test_cpu_dispatcher_invalid: a CPU jit function with explicit
# signatures is numba's to refuse on the device; no checked copy of it is made).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 430 python3 tools/numba_suite.py --workers 15 --timeout 200 --deadline 400 --table $OUT/numba-table.md --json /tmp/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
tail -n 8 $OUT/numba-suite.log
