#!/usr/bin/env bash
# Session 2026-11-29b call A (one H200): (1) where a checked first launch's time goes beyond
# plain numba's on small kernels (first_launch_diff.py); (2) fbpic's gather at this tree and with
# the outlined checked copy whose flag is copied in and out (branch lead/cold-bodies, as the
# patch cb.patch: git diff main try/cold-bodies), run time and compile time, twice each,
# alternating; (3) the GPU tests of tests/numba in the patched tree.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
R=benchmarks/results/2026-11-29b-device-calls
export SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
timeout 150 python3 $R/first_launch_diff.py --reps 5 vector_add saxpy jacobi \
    gather_scatter rw_evi rw_arvi transpose > $OUT/first_launch_diff.log 2>&1
echo "rc=$?" >> $OUT/first_launch_diff.log
rm -rf /tmp/cb && cp -r . /tmp/cb && (cd /tmp/cb && patch -p1 < cb.patch) > $OUT/patch.log 2>&1
for round in 1 2; do
  for tree in main cb; do
    dir=$PWD; [ $tree = cb ] && dir=/tmp/cb
    (cd $dir && PYTHONPATH=$dir:/tmp/site timeout 120 python3 $R/fbpic_gather.py $OUT/fbpic_$tree$round.json) \
      > $OUT/fbpic_$tree$round.log 2>&1
    echo "rc=$?" >> $OUT/fbpic_$tree$round.log
  done
done
(cd /tmp/cb && PYTHONPATH=/tmp/cb:/tmp/site timeout 170 python3 -m pytest -m gpu -q -p no:cacheprovider tests/numba -x) \
  > $OUT/pytest-gpu-numba-cb.log 2>&1; echo "rc=$?" >> $OUT/pytest-gpu-numba-cb.log
tail -n 30 $OUT/first_launch_diff.log | head -12
grep -h "rw_fbpic_gather {\|compile rw_fbpic" $OUT/fbpic_*.log
tail -n 3 $OUT/pytest-gpu-numba-cb.log
