#!/usr/bin/env bash
# Session 2026-11-29c call G (one H200): this session's fixes of what the real-world probes found,
# on the GPU: numba.cuda.random checked copies, OpenCL as_type/printf/macro functions and SVM on
# NVIDIA's OpenCL, CUDA texture/surface objects through safekern.cupy; then the GPU tests of
# tests/cupy and tests/opencl.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
D=benchmarks/results/2026-11-29c-device-calls
python3 $D/texture_probe.py > $OUT/texture.log 2>&1; echo "rc=$?" >> $OUT/texture.log
python3 -m pytest -q -p no:cacheprovider -m gpu tests/numba/test_numba_random.py tests/opencl/test_opencl_real_world_constructs.py tests/opencl/test_svm_arguments_opencl.py tests/frontend/test_cuda_real_world_constructs.py -rfEs > $OUT/pytest-fixes.log 2>&1; echo "rc=$?" >> $OUT/pytest-fixes.log
timeout 330 python3 -m pytest -q -p no:cacheprovider -m gpu tests/cupy tests/opencl -rfE > $OUT/pytest-gpu-c.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-c.log
cat $OUT/texture.log | grep -v Warning | tail -8; tail -n 4 $OUT/pytest-fixes.log; tail -n 4 $OUT/pytest-gpu-c.log
