#!/usr/bin/env bash
# Session 2026-11-29d call B (one H200): numba device functions' call chains on the GPU
# (tests/numba/test_call_chains.py: the simulator is off on a GPU machine), every GPU test of
# the numba backend, and PyOpenCL's test_array in mode `all` on NVIDIA's OpenCL alone (call A
# stopped it at its time limit after 90 of 158 tests, running beside the other suites).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
( taskset -c 8-15 timeout 420 python3 tools/opencl_suite.py --platform nvidia --tests-dir .pyopencl-tests/2026.1.4 --modes plain,all --timeout 400 --deadline 410 --json $OUT/ocl-array.json --table $OUT/ocl-array-table.md test_array > $OUT/ocl-array.log 2>&1; echo "rc=$?" >> $OUT/ocl-array.log ) &
taskset -c 0-7 timeout 120 python3 -m pytest -q -p no:cacheprovider tests/numba/test_call_chains.py -rfE > $OUT/call-chains-gpu.log 2>&1; echo "rc=$?" >> $OUT/call-chains-gpu.log
taskset -c 0-7 timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba -rfE -x > $OUT/pytest-gpu-numba.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba.log
wait
cd $OUT && tail -n 5 call-chains-gpu.log pytest-gpu-numba.log; grep -v "not run" ocl-array.log | tail -n 8
