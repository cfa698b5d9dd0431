#!/usr/bin/env bash
# Session 2026-11-29e call A (one H200): can safekern's front end run while numba compiles?
# overlap_probe.py on cases whose first step launches numba's own kernels, Python's default
# switch interval and a shorter one.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1
D=benchmarks/results/2026-11-29e-device-calls
nproc > $OUT/nproc.log
for sw in 0 0.0005; do
  SAFEKERN_BENCH_REALWORLD=$PWD/.realworld PYTHONPATH=$PWD:$PYTHONPATH timeout 200 python3 $D/overlap_probe.py --reps 5 $( [ $sw != 0 ] && echo --switch $sw ) vector_add saxpy jacobi hotspot pathfinder backprop nw rw_focal_mean rw_evi rw_slope > $OUT/overlap-$sw.log 2>&1; echo "rc=$?" >> $OUT/overlap-$sw.log
done
tail -n 12 $OUT/overlap-*.log
