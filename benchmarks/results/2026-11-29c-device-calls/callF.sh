#!/usr/bin/env bash
# Session 2026-11-29c call F (one H200): the periodic k-d tree's bug located and its proposed fix
# checked against SciPy (tests/cupy/test_cupyx_kdtree_gpu.py, with the IIR one), then CuPy's
# test_kdtree.py in both modes with the bug in tools/cupyx_suite.py's KNOWN.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
python3 -m pytest -q -p no:cacheprovider -m gpu tests/cupy/test_cupyx_kdtree_gpu.py tests/cupy/test_cupyx_iir_gpu.py -rfE > $OUT/pytest-cupyx-bugs.log 2>&1; echo "rc=$?" >> $OUT/pytest-cupyx-bugs.log
timeout 300 python3 tools/cupyx_suite.py --workdir /tmp/cupyx --shards 2 --timeout 250 --json $OUT/cupyx.json test_kdtree.py > $OUT/cupyx-kdtree.log 2>&1; echo "rc=$?" >> $OUT/cupyx-kdtree.log
tail -n 30 $OUT/pytest-cupyx-bugs.log; tail -n 8 $OUT/cupyx-kdtree.log | cut -c1-300
