#!/usr/bin/env bash
# Session 2026-11-27d call 5: the submitted code: numba benchmarks (suite + real-world, compile timing),
# then every GPU test, numba-cuda's suite and CuPy's test_raw.py, in parallel.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
SAFEKERN_BENCH_REALWORLD=.realworld timeout ${BENCH_T:-330} python3 -m benchmarks --languages numba --modes unchecked,checked --reps 3 --compile-reps 2 --no-host --out $OUT/numba > $OUT/bench-numba.log 2>&1; echo "numba rc=$?" >> $OUT/bench-numba.log
T=${TESTS_T:-230}
P="python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE"
( timeout $T $P tests/numba > $OUT/gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/gpu-numba.log ) &
( timeout $T $P tests --ignore tests/numba --ignore tests/opencl --ignore tests/bench > $OUT/gpu-rest.log 2>&1; echo "rc=$?" >> $OUT/gpu-rest.log ) &
( timeout $T $P tests/opencl > $OUT/gpu-opencl.log 2>&1; echo "rc=$?" >> $OUT/gpu-opencl.log ) &
( timeout $T python3 tools/numba_suite.py --workers 10 --timeout 200 --deadline $((T-25)) --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log ) &
( timeout $T python3 tools/cupy_suite.py --workdir /tmp/cupysuite --timeout 200 --table $OUT/cupy-table.md --json $OUT/cupy.json > $OUT/cupy-suite.log 2>&1; echo "rc=$?" >> $OUT/cupy-suite.log ) &
wait
echo "=== numba bench"; grep -E "geomean|goal|rc=|^bfs_step|perlin|fbpic_gather|stump|pairs|compile" $OUT/bench-numba.log | tail -24
for f in numba rest opencl; do echo "=== gpu tests $f"; grep "^FAILED\|^ERROR" $OUT/gpu-$f.log | cut -c1-250 | head -20; tail -2 $OUT/gpu-$f.log; done
echo "=== numba suite"; tail -6 $OUT/numba-suite.log
echo "=== cupy"; tail -4 $OUT/cupy-suite.log
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o
