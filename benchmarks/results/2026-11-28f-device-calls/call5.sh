#!/usr/bin/env bash
# Session 2026-11-28f call 5 (one H200), the final code: numba-cuda's own test suite with
# safekern.jit for every caller vs plain numba (tools/numba_suite.py), on the GPU.
. .gpu/bootstrap.sh
T=420
timeout $T python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline $((T-25)) --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
tail -n 15 $OUT/numba-suite.log
