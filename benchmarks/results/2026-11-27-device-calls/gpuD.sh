#!/usr/bin/env bash
# Window 2, call 1: PyOpenCL 2026.1.4's tests on NVIDIA's OpenCL in three modes, with no CuPy process
# beside them (CuPy's memory pools beside them made NVIDIA's OpenCL fail contexts with
# OUT_OF_HOST_MEMORY, plain PyOpenCL too); the GPU tests fixed after call 1 and numba-cuda's
# test_device_func under safekern.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT/ocl
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
D=${OCL_DEADLINE:-430}
T=.pyopencl-tests/2026.1.4
for m in plain user all; do
  XDG_CACHE_HOME=/tmp/xdg-$m-a timeout $((D+15)) python3 tools/opencl_suite.py --platform nvidia --tests-dir $T --modes $m --deadline $D --timeout $D --json $OUT/ocl/$m-a.json test_array test_clmath > $OUT/ocl/$m-a.log 2>&1 &
  XDG_CACHE_HOME=/tmp/xdg-$m-b timeout $((D+15)) python3 tools/opencl_suite.py --platform nvidia --tests-dir $T --modes $m --deadline $D --timeout $D --json $OUT/ocl/$m-b.json test_algorithm test_wrapper test_enqueue_copy test_arrays_in_structs test_clrandom > $OUT/ocl/$m-b.log 2>&1 &
done
( timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/numba/test_plain_launches.py tests/numba/test_bounded_scalars.py tests/numba/test_equal_shapes.py tests/opencl/test_opencl_everything.py > $OUT/gpu-fixed.log 2>&1; echo "rc=$?" >> $OUT/gpu-fixed.log
  timeout 200 python3 tools/numba_suite.py --workers 1 --timeout 180 --deadline 190 --json $OUT/numba-devfunc.json cudapy.test_device_func > $OUT/numba-devfunc.log 2>&1; echo "rc=$?" >> $OUT/numba-devfunc.log ) &
wait
python3 tools/opencl_suite.py --merge $OUT/ocl/*.json --table $OUT/ocl-table.md > $OUT/ocl-merged.txt 2>&1
echo "=== ocl"; head -3 $OUT/ocl-merged.txt; grep -c OUT_OF_HOST $OUT/ocl-merged.txt; grep "^REGRESSION" $OUT/ocl-merged.txt | cut -c1-250 | head -20; tail -3 $OUT/ocl-merged.txt
echo "=== fixed gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-fixed.log | cut -c1-250; tail -3 $OUT/gpu-fixed.log
echo "=== numba test_device_func"; tail -6 $OUT/numba-devfunc.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls -la /tmp/o
