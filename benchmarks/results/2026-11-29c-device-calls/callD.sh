#!/usr/bin/env bash
# Session 2026-11-29c call D (one H200): after 1a22f31 (the SVM stand-in kernel), PyOpenCL's
# test_wrapper on NVIDIA's OpenCL in the three modes, the SVM tests with the real GPU, the probe.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
python3 -m pytest -q -p no:cacheprovider -m gpu tests/opencl/test_svm_arguments_opencl.py tests/opencl/test_launch_arguments_opencl.py tests/opencl/test_opencl_everything.py -rfEs > $OUT/pytest-svm.log 2>&1; echo "rc=$?" >> $OUT/pytest-svm.log
PYOPENCL_TEST=nvidia python3 benchmarks/results/2026-11-29c-device-calls/svm_probe.py 2>&1 | grep -v RepeatedKernel > $OUT/svm_probe.log
timeout 300 python3 tools/opencl_suite.py --platform nvidia --tests-dir .pyopencl-tests/2026.1.4 --modes plain,user,all --timeout 280 --json $OUT/ocl.json --table $OUT/ocl-table.md test_wrapper > $OUT/ocl-suite.log 2>&1; echo "rc=$?" >> $OUT/ocl-suite.log
tail -n 3 $OUT/pytest-svm.log; grep -E "ok, values|FAILED" $OUT/svm_probe.log; tail -n 6 $OUT/ocl-suite.log
