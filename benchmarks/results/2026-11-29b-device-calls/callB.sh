#!/usr/bin/env bash
# Session 2026-11-29b call B (one H200): kernels written as users write them (probes/), each run
# plain and checked, results compared byte for byte, and one out-of-bounds access each:
# numba-cuda (two scripts, on the GPU: SIM=0), CuPy RawKernel/RawModule/ElementwiseKernel,
# PyOpenCL on NVIDIA's OpenCL.
. .gpu/bootstrap.sh
R=benchmarks/results/2026-11-29b-device-calls/probes
{
  for s in numba_user_kernels_1 numba_user_kernels_2 cupy_user_kernels opencl_user_kernels; do
    echo "== $s"
    SIM=0 SAFEKERN_CACHE=off timeout 120 python3 $R/$s.py 2>&1 | grep -v "Warning\|warn("
    echo "rc=${PIPESTATUS[0]}"
  done
} > $OUT/probes.log 2>&1
cat $OUT/probes.log
