#!/usr/bin/env bash
# Session 2026-11-28f call 2 (one H200): rw_perlin's checked kernel built four ways
# (perlin_variants.py), the kernel alone, 7 reps each; run again with the kernel cache off (the
# first run, call2/, measured the cached binary of the first build five times).
. .gpu/bootstrap.sh
export PYTHONUNBUFFERED=1 SAFEKERN_BENCH_REALWORLD=$PWD/.realworld SAFEKERN_CACHE=off   # (a cached binary would serve every variant)
P=benchmarks/results/2026-11-28f-device-calls/perlin_variants.py
for v in "base::" "noselect:1:" "select-max40::40" "noselect-max32:1:32" "select-max32::32"; do
  IFS=: read name nosel maxreg <<< "$v"
  NOSELECT=$nosel MAXREG=$maxreg timeout 100 python3 $P --languages numba --only rw_perlin --modes unchecked,checked --reps 7 --compile-reps 0 --no-host --out $OUT/perlin-$name > $OUT/perlin-$name.log 2>&1
  echo "$name rc=$? $(grep -E '^\| rw_perlin \| 8192' $OUT/perlin-$name/*.md | cut -d'|' -f5-7)"
done
