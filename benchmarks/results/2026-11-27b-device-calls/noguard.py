"""Run the benchmarks with CUDA C loops that store left unversioned (the guarded form of bfs4 off)."""
import runpy, sys
from safekern.frontend.c import counted_loops
_orig = counted_loops.CountedLoop.__init__
def _init(self, ps, cursor, invariant, stores=False):
    _orig(self, ps, cursor, invariant, False)
counted_loops.CountedLoop.__init__ = _init
sys.argv = ["benchmarks"] + sys.argv[1:]
runpy.run_module("benchmarks", run_name="__main__")
