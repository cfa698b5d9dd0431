#!/usr/bin/env bash
# Session 2026-11-27d call 3: ncu of rw_perlin and rw_fbpic_gather, plain vs checked (main + regs branch, OCC off).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld SAFEKERN_AB_OCC=0
REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
which ncu >> $OUT/gpu.txt
for c in rw_perlin rw_fbpic_gather; do
timeout 200 ncu --target-processes all -k regex:"perlin|gather_field" --launch-skip 0 --launch-count 6 --section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats python3 -m benchmarks --languages numba --modes unchecked,checked --reps 1 --compile-reps 0 --no-host --only $c --out $OUT/b-$c > $OUT/ncu-$c.log 2>&1; echo "rc=$?" >> $OUT/ncu-$c.log
done
for c in rw_perlin rw_fbpic_gather; do echo "=== $c"; grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Reg|Memory Throughput|L1/TEX Hit|L2 Hit|Executed Ipc A|Issued Warp|No Eligible|Stall|Local Memory|Compute \(SM\) Th|DRAM Through|Warp Cycles Per Issued|rc=" $OUT/ncu-$c.log | cut -c1-130 | head -90; done
cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o | head -3
