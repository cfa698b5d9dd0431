"""Run without the simulator: every numba kernel of the benchmark suite, checked (safekern.jit)
and plain (numba.cuda.compile_ptx), compiled to PTX for sm_90 with the argument types of its
launches (no GPU needed); prints {kernel: {"checked": PTX lines, "plain": PTX lines, "records":
the checked PTX's failure records (64-bit compare-and-swaps on the failure buffer), "sites": the
sites the checked build checks (checked, hoisted or proven only at launch)}} as JSON.

    python -m tests.bench.benchmarks_ptx_probe [CASE ...]
"""
import json
import sys

import numba
from numba import cuda

import safekern
from benchmarks import cases


def signature(args):
    return numba.void(*(numba.typeof(a) for a in args))


def main(names):
    out = {}
    # the suite (real-world kernels are modules of their own, and their device functions need a
    # GPU to compile)
    for name in names or cases.SUITE:
        case = cases.build(name, quick=True)
        for kernel, _, _, args in case.plan(case.arrays):
            if kernel in out:
                continue
            fn, sig = case.kernels[kernel], signature(args)
            kern = safekern.jit(fn)
            checked = kern.compile_ptx(sig, cc=(9, 0))
            sites = sum(e.status in ("checked", "hoisted", "proven at launch")
                        for e in kern.check_report())
            plain, _ = cuda.compile_ptx(fn, sig, cc=(9, 0))
            out[kernel] = {"checked": checked.count("\n"), "plain": plain.count("\n"),
                           "records": checked.count("atom.global.cas.b64"), "sites": sites}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
