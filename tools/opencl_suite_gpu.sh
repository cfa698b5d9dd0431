#!/usr/bin/env bash
# PyOpenCL 2026.1.4's tests on NVIDIA's OpenCL in one device run (docs/compatibility.md):
# modes plain/user/all split side by side over the cores, merged with opencl_suite.py --merge;
# before them the check-everything benchmark alone; beside them tests/opencl's GPU tests.
# Logs, JSON, table.md and merged.txt go under $OUT. Needs .pyopencl-tests/ (git-ignored: copy it
# into the staged tree) and Mako, which PyOpenCL's reductions and scans need: installed, or
# pure-Python copies of mako/ and markupsafe/ in .gpu-py/.
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/.gpu-py:$PYTHONPATH" OCL_ICD_VENDORS=/etc/OpenCL/vendors
mkdir -p "$OUT/suite"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
python3 - >> "$OUT/gpu.txt" 2>&1 <<'PY'
import pyopencl as cl, mako
for p in cl.get_platforms():
    print(p.name, p.version, [d.name for d in p.get_devices()])
print("mako", mako.__version__)
PY
# The check-everything benchmark first, alone on the machine (host overheads are timed).
timeout 50 python3 -m benchmarks.opencl_everything --out "$OUT/bench" > "$OUT/bench.log" 2>&1
T=.pyopencl-tests/2026.1.4
SCAN="test_scan or test_segmented_scan or test_copy_if or test_partition or test_unique or test_index_preservation"
SORT="test_sort or test_key_value_sorter or test_bitonic or test_list_builder"
RED="test_dot or test_sum or test_minmax or test_subset_minmax or test_struct_reduce or test_reduction_not_first_argument"
ARR1="test_basic_complex or test_mix_complex or test_pow or test_vector_fill or test_zeros_large_array or test_absrealimag or test_custom_type or test_div_type or test_rmul or test_multiply or test_addition or test_subtract or test_divide or test_bitwise or test_random or test_numpy_integer_shape or test_allocation_with or test_len or test_stride_preservation or test_nan_arithmetic or test_mem_pool or test_view or test_diff or test_copy or test_slice or test_concatenate or test_comparisons or test_any_all"
job() {   # tag modes files... [-k expr]
  local tag=$1 modes=$2; shift 2
  XDG_CACHE_HOME=/tmp/xdg-$tag timeout 275 python3 tools/opencl_suite.py --platform nvidia \
    --tests-dir $T --modes "$modes" --deadline 255 --timeout 255 \
    --json "$OUT/suite/$tag.json" "$@" > "$OUT/suite/$tag.log" 2>&1 &
}
for m in plain,user all; do
  t=${m%%,*}
  job wrapper-$t $m test_wrapper
  job small-$t $m test_enqueue_copy test_arrays_in_structs test_clrandom
  job clmath-$t $m test_clmath
  job arr1-$t $m test_array -k "$ARR1"
  job arr2-$t $m test_array -k "not ($ARR1)"
  job scan-$t $m test_algorithm -k "$SCAN"
  job sort-$t $m test_algorithm -k "$SORT"
  job red-$t $m test_algorithm -k "$RED"
  job algo-$t $m test_algorithm -k "not ($SCAN or $SORT or $RED)"
done
timeout 262 python3 -m pytest -m gpu -q -p no:cacheprovider -rfEs tests/opencl > "$OUT/gpu_tests.log" 2>&1 &
wait
python3 tools/opencl_suite.py --merge "$OUT"/suite/*.json --table "$OUT/table.md" > "$OUT/merged.txt" 2>&1
tail -40 "$OUT/merged.txt"; tail -5 "$OUT/gpu_tests.log"
