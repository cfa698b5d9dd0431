"""rw_perlin's checked kernel on this GPU built three ways (an experiment, not safekern's
code): as safekern builds it (gathers as branch-free select loads, `_sk_loadv`), with every
gather a load behind its branch (`_sk_load`: NOSELECT=1), and either with ptxas capped at
MAXREG registers (numba's max_registers). Then the benchmark of that one kernel.

    NOSELECT=1 MAXREG=32 python3 perlin_variants.py --only rw_perlin --reps 7 ...
"""
import os
import sys

import safekern.backends.numba.build as build
import safekern.backends.numba.intrinsics as intrinsics

_namespace = intrinsics.namespace


def namespace():
    ns = _namespace()
    if os.environ.get("NOSELECT"):
        ns["_sk_loadv"] = ns["_sk_load"]
    return ns


intrinsics.namespace = namespace
if os.environ.get("MAXREG"):
    _jit = build.Build.jit

    def jit(self, fn):
        if not self.device:
            self.options = dict(self.options, max_registers=int(os.environ["MAXREG"]))
        return _jit(self, fn)

    build.Build.jit = jit

from benchmarks.__main__ import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
