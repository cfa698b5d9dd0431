#!/usr/bin/env bash
# Session 2026-11-27e call 4: ccomp's record (branch over the stores, one cvt) and rolled checked loop
# copies (int = main + ccomp) vs main (.wt/bis/pre = 92a8df8), two rounds, modes interleaved; the record's
# GPU tests.
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/.wt/lead/.gpu-py:$PYTHONPATH SAFEKERN_CACHE=off SAFEKERN_BENCH_REALWORLD=$PWD/.realworld
R=$PWD; REAL_OUT=$OUT; OUT=/tmp/o; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt; cat .wt/lead3/commit >> $OUT/gpu.txt
N="--languages numba --modes unchecked,checked --reps 3 --compile-reps 0 --no-host --only spmv_csr,lud,srad,bfs_step,nw,hotspot,pathfinder,backprop,histogram,gather_scatter,matmul_tiled,prefix_scan,rw_perlin,rw_fbpic_gather,rw_fbpic_deposit,rw_stump,rw_pairs_chop,rw_pairs_brute,rw_focal_std,rw_convolve_2d"
for i in 1 2; do for v in pre int; do d=$R; [ $v = pre ] && d=$R/.wt/bis/pre
  (cd $d && timeout 120 python3 -m benchmarks $N --out $OUT/$v-$i > $OUT/$v-$i.log 2>&1; echo "rc=$?" >> $OUT/$v-$i.log)
done; done
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider --timeout 120 -rfE tests/numba/test_record_asm_gpu.py tests/numba/test_numba_kernels.py tests/numba/test_body_versioning.py > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log
for f in pre-1 int-1 pre-2 int-2; do echo "== $f"; grep -E "x\)$|rc=" $OUT/$f.log | tail -21 | sed 's/: unchecked.*(/ (/' | tr '\n' ' '; echo; done
echo "== gpu tests"; grep "^FAILED\|^ERROR" $OUT/gpu-tests.log | cut -c1-250 | head -20; tail -2 $OUT/gpu-tests.log
rm -rf /tmp/o/*/*.png; cd /tmp/o && tar czf $REAL_OUT/logs.tgz . ; ls /tmp/o | head -3
