#!/usr/bin/env bash
# Session 2026-11-28g call 2 (one H200): the GPU tests of the touched paths, then five kernels'
# run and compile time (fbpic's gather: its checked copy out of line, cold_body.py).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba/test_body_versioning.py tests/numba/test_numba_kernels.py tests/numba/test_record_asm_gpu.py tests/numba/test_exit_at_check.py tests/numba/test_plain_launches.py -rfE > $OUT/pytest-gpu.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu.log
tail -n 3 $OUT/pytest-gpu.log
SAFEKERN_BENCH_REALWORLD=$PWD/.realworld timeout 300 python3 -m benchmarks --languages numba --modes unchecked,checked --reps 5 --compile-reps 5 --no-host --only rw_fbpic_gather,rw_fbpic_deposit,gather_scatter,spmv_csr,bfs_step,lud --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "rc=$?" >> $OUT/bench-numba.log
grep -E "^compile|geomean|worst" $OUT/bench-numba.log | tail -n 12
