#!/usr/bin/env bash
# Session 2026-11-29c call E (one H200): cupyx's periodic k-d tree under safekern (kdtree_probe.py,
# plain and safekern, results compared); CuPy's test_kdtree.py in both modes where SciPy is there.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
D=benchmarks/results/2026-11-29c-device-calls
python3 -c "import scipy; print('scipy', scipy.__version__)" > $OUT/kdtree.log 2>&1
for mode in plain safekern; do
  timeout 200 python3 $D/kdtree_probe.py $mode $OUT/kd-$mode.npz >> $OUT/kdtree.log 2>&1; echo "$mode rc=$?" >> $OUT/kdtree.log
done
python3 - >> $OUT/kdtree.log 2>&1 <<'PY'
import numpy as np, os
a, b = (np.load(os.environ["OUT"] + f"/kd-{m}.npz") for m in ("plain", "safekern"))
for k in a.files:
    print(k, "same" if k in b.files and np.array_equal(a[k], b[k]) else "DIFFERENT or missing")
PY
timeout 300 python3 tools/cupyx_suite.py --workdir /tmp/cupyx --shards 2 --timeout 250 --json $OUT/cupyx.json test_kdtree.py > $OUT/cupyx-kdtree.log 2>&1; echo "rc=$?" >> $OUT/cupyx-kdtree.log
cat $OUT/kdtree.log | grep -v "^  File\|^    " | head -80; tail -n 15 $OUT/cupyx-kdtree.log
