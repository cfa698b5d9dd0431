#!/usr/bin/env bash
# Window 2, call 1b: PyOpenCL 2026.1.4's tests on NVIDIA's OpenCL in three modes, with no CuPy process
# beside them (CuPy's memory pools beside them made NVIDIA's OpenCL fail contexts with
# OUT_OF_HOST_MEMORY, plain PyOpenCL too); tests/opencl's GPU tests.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 OCL_ICD_VENDORS=/etc/OpenCL/vendors PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT/ocl
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead2/commit >> $OUT/gpu.txt
D=${OCL_DEADLINE:-430}
T=.pyopencl-tests/2026.1.4
SORT="test_sort or test_bitonic or test_key_value_sorter or test_list_builder or test_unique or test_partition or test_copy_if or test_index_preservation"
job() {   # tag mode files... [-k expr]
  local tag=$1 m=$2; shift 2
  XDG_CACHE_HOME=/tmp/xdg-$tag timeout $((D+15)) python3 tools/opencl_suite.py --platform nvidia --tests-dir $T --modes $m --deadline $D --timeout $D --json $OUT/ocl/$tag.json "$@" > $OUT/ocl/$tag.log 2>&1 &
}
for m in plain user; do
  job $m-a $m test_array test_clmath
  job $m-b $m test_algorithm test_wrapper test_enqueue_copy test_arrays_in_structs test_clrandom
done
job all-a all test_array
job all-b all test_algorithm -k "$SORT"
job all-c all test_algorithm -k "not ($SORT)"
job all-d all test_clmath test_wrapper test_enqueue_copy test_arrays_in_structs test_clrandom
( timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 200 -rfE tests/opencl > $OUT/gpu-opencl.log 2>&1; echo "rc=$?" >> $OUT/gpu-opencl.log ) &
wait
python3 tools/opencl_suite.py --merge $OUT/ocl/*.json --table $OUT/ocl-table.md > $OUT/ocl-merged.txt 2>&1
echo "=== ocl"; head -3 $OUT/ocl-merged.txt; grep -c OUT_OF_HOST $OUT/ocl-merged.txt; grep "^REGRESSION" $OUT/ocl-merged.txt | cut -c1-250 | head -20; tail -3 $OUT/ocl-merged.txt
echo "=== opencl gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-opencl.log | cut -c1-250; tail -3 $OUT/gpu-opencl.log
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls -la /tmp/o
