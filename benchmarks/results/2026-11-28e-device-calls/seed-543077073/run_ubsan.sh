#!/usr/bin/env bash
# The user's kernel, safekern's checked text and two launch variants as C (harness_head.h maps
# OpenCL's address spaces, work-item functions and atomics; harness_main.c runs launch 2's 64
# work-items in order), built with UBSan (any undefined behaviour aborts) by clang -O2/-O0 and gcc -O2.
cd "$(dirname "$0")"; T=$(mktemp -d)
for t in lfuzz_543077073 checked variant1 variant3; do
  def=; [ $t = lfuzz_543077073 ] && def=-DUSER
  { cat harness_head.h; grep -v "^//\|#pragma OPENCL\|^#line" $t.cl; cat harness_main.c; } > $T/$t.c
  for cc in "clang-15 -O2" "clang-15 -O0" "gcc -O2"; do
    $cc $def -w -fsanitize=undefined -fno-sanitize-recover=all -o $T/bin $T/$t.c && echo "$t [$cc] $($T/bin 2>&1 | cut -c1-80)"
  done
done
