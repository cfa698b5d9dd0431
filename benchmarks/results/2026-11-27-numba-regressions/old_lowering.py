"""GPU probe (issue 26, helper nreg5): the numba benchmarks with the failure-record lowering
of 66abc28, before ncompile2 (9f118a0), on today's code -- to tell which of its two changes
made spmv_csr and rw_fbpic_gather slower on the H100 (0.98x -> 1.19x, 1.21x -> 1.47x) when
the CPU proxies (rewrite, variant launched, hot-loop PTX and SASS) show no difference.

    SK_OLD_IDS=1      thread/block indices: six volatile register reads and 64-bit stores
                      (was: one inline asm with 32-bit generic stores and a memory clobber)
    SK_OLD_RECORDS=1  a record per failing index component (was: one per access, the first
                      failing component's through phis)

    python benchmarks/results/2026-11-27-numba-regressions/old_lowering.py <benchmark args>

A probe, not product code: it patches safekern.backends.numba.lowering before any kernel
is built, then runs `python -m benchmarks` with the arguments given.
"""
import os
import runpy
import sys

sys.path.insert(0, os.getcwd())         # the checkout it is run from

from llvmlite import ir  # noqa: E402
from numba.cuda import cgutils  # noqa: E402

from safekern.backends.numba import lowering  # noqa: E402

if os.environ.get("SK_OLD_IDS") == "1":
    def store_thread_and_block(builder, data, slot):
        i64 = ir.IntType(64)
        for k, reg in enumerate(("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")):
            builder.store(lowering.special_register(builder, reg),
                          builder.gep(data, [ir.Constant(i64, slot + k)]))
    lowering.store_thread_and_block = store_thread_and_block

if os.environ.get("SK_OLD_RECORDS") == "1":
    def emit_records(context, builder, compared, code, fb, flag, fb_ty, flag_ty):
        ok = cgutils.true_bit
        i64 = ir.IntType(64)
        for pos, axis, value, size, unsigned, bad in compared:
            with builder.if_then(bad, likely=False):
                lowering.emit_record(context, builder, fb_ty, flag_ty, fb, flag,
                                     builder.add(code, ir.Constant(i64, pos)), value, size,
                                     ir.Constant(i64, axis), unsigned_bits=int(unsigned))
            ok = builder.and_(ok, builder.not_(bad))
        return ok
    lowering.emit_records = emit_records

if __name__ == "__main__":
    sys.argv = ["benchmarks"] + sys.argv[1:]
    runpy.run_module("benchmarks", run_name="__main__")
