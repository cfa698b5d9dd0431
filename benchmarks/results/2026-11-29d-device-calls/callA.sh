#!/usr/bin/env bash
# Session 2026-11-29d call A (one H200, 16 cores): the three drop-in suites after this session's
# changes (OpenCL helpers with barriers, call chains in OpenCL helpers and numba device
# functions, C #line, OpenCL macro-written functions), in parallel lanes: CuPy's test_raw.py,
# numba-cuda's own suite, PyOpenCL's tests on NVIDIA's OpenCL; then safekern's own GPU tests of
# the CuPy and OpenCL backends (NVIDIA OpenCL included).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
( taskset -c 0-2 timeout 250 python3 tools/cupy_suite.py --workdir /tmp/cupysuite --timeout 220 --table $OUT/cupy-table.md --json $OUT/cupy.json > $OUT/cupy-suite.log 2>&1; echo "rc=$?" >> $OUT/cupy-suite.log
  taskset -c 0-2 timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/cupy tests/opencl -rfE > $OUT/pytest-gpu-c.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-c.log ) &
( taskset -c 3-6 timeout 540 python3 tools/opencl_suite.py --platform nvidia --tests-dir .pyopencl-tests/2026.1.4 --modes plain,user,all --timeout 500 --deadline 520 --json $OUT/ocl.json --table $OUT/ocl-table.md test_wrapper test_enqueue_copy test_arrays_in_structs test_clrandom test_clmath test_array > $OUT/ocl-suite.log 2>&1; echo "rc=$?" >> $OUT/ocl-suite.log ) &
taskset -c 7-15 timeout 420 python3 tools/numba_suite.py --workers 9 --timeout 200 --deadline 390 --table $OUT/numba-table.md --json $OUT/numba.json > $OUT/numba-suite.log 2>&1; echo "rc=$?" >> $OUT/numba-suite.log
wait
cd $OUT && tail -n 4 cupy-suite.log pytest-gpu-c.log ocl-suite.log; tail -n 12 numba-suite.log
tar czf logs.tgz *.log *.md 2>/dev/null
