#!/usr/bin/env bash
# Session 2026-11-27d call 7: the record's GPU tests after they moved to numba_kernels' kernels.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH
nvidia-smi -L; cat .wt/lead3/commit
timeout 200 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 150 -rfE tests/numba/test_record_asm_gpu.py tests/numba/test_numba_ptx.py 2>&1 | tail -5
