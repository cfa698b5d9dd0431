#!/usr/bin/env bash
# Session 2026-11-28d call 1: the CuPy per-repetition probe on 2 pinned cores, the C fuzzers on the rest.
. .gpu/bootstrap.sh
N=$(nproc --all)
( taskset -c 0,1 python3 .wt/lead4/cupy_probe.py saxpy,vector_add,jacobi > $OUT/cupy_probe.log 2>&1; echo "rc=$?" >> $OUT/cupy_probe.log ) &
OSEED=$1 LSEED=$2 MIN=${MIN:-8} FUZZJ=$(( (N-2)/2 )) NOEXTRA=1 taskset -c 2-$((N-1)) bash .wt/lead3/callC.sh
wait
tail -n 60 $OUT/cupy_probe.log
