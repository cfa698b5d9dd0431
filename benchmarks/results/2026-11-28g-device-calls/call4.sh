#!/usr/bin/env bash
# Session 2026-11-28g call 4 (one H200): the three compile cases call 3's time limit cut off
# (7 fresh compiles each), then numba-cuda's own suite with safekern.jit for every caller vs
# plain numba (tools/numba_suite.py), at the final code.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 100 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 2 --compile-reps 7 --no-host --only rw_pairs_chop,rw_docs_matmul,rw_docs_laplace --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
grep "^compile" $OUT/bench-numba.log
T=380
timeout $T python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline $((T-25)) --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
tail -n 15 $OUT/numba-suite.log
