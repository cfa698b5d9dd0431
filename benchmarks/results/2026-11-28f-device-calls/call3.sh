#!/usr/bin/env bash
# Session 2026-11-28f call 3 (one H200): why rw_perlin's checked kernel is 1.30x numba's here
# (1.11x on an H100): ncu's counts for the third launch of each, and the SASS.
. .gpu/bootstrap.sh
export SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
D=benchmarks/results/2026-11-28f-device-calls
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis"
for m in unchecked checked; do
  timeout 200 ncu --launch-skip 2 --launch-count 1 -k regex:perlin $S python3 $D/perlin_once.py $m > $OUT/ncu-$m.txt 2>&1
  echo "== $m rc=$?"; grep -E "Duration|Registers|Occupancy|Executed Ipc|Issued Warp|Stall|Instructions|Warp Cycles|Throughput|Block Limit|Elapsed Cycles|SM Busy|Hit Rate" $OUT/ncu-$m.txt | head -60
done
