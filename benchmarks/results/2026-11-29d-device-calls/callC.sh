#!/usr/bin/env bash
# Session 2026-11-29d call C (one H200): at the final code -- numba-cuda's own suite under
# safekern again (user @numba.njit helpers are now checked copies), safekern's GPU tests of the
# OpenCL backend and of this session's numba tests, PyOpenCL's test_algorithm in mode `all` on
# NVIDIA's OpenCL (never run there in that mode), and the CUDA C `#line` probe.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
D=benchmarks/results/2026-11-29d-device-calls
( taskset -c 0-3 timeout 60 python3 $D/line_probe.py > $OUT/line-probe.log 2>&1; echo "rc=$?" >> $OUT/line-probe.log
  taskset -c 0-3 timeout 120 python3 $D/typing_probe.py >> $OUT/line-probe.log 2>&1; echo "rc=$?" >> $OUT/line-probe.log
  taskset -c 0-3 timeout 330 python3 -m pytest -q -p no:cacheprovider -m gpu tests/opencl -rfE > $OUT/pytest-gpu-ocl.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-ocl.log
  taskset -c 0-3 timeout 120 python3 -m pytest -q -p no:cacheprovider tests/numba/test_numba_njit_helpers.py tests/numba/test_call_chains.py tests/numba/test_numba_random.py tests/numba/test_sync_points_numba.py tests/numba/test_races.py -rfE > $OUT/pytest-numba-new.log 2>&1; echo "rc=$?" >> $OUT/pytest-numba-new.log ) &
( taskset -c 4-6 timeout 530 python3 tools/opencl_suite.py --platform nvidia --tests-dir .pyopencl-tests/2026.1.4 --modes plain,all --timeout 500 --deadline 510 --json $OUT/ocl-alg.json --table $OUT/ocl-alg-table.md test_algorithm > $OUT/ocl-alg.log 2>&1; echo "rc=$?" >> $OUT/ocl-alg.log ) &
taskset -c 7-15 timeout 420 python3 tools/numba_suite.py --workers 9 --timeout 200 --deadline 390 --table $OUT/numba-table.md --json /tmp/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
wait
cd $OUT && tail -n 3 line-probe.log pytest-gpu-ocl.log pytest-numba-new.log; grep -v "not run" ocl-alg.log | tail -n 6; tail -n 6 numba-suite.log
