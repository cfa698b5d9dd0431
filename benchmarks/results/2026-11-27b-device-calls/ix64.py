"""Run the benchmarks with the 64-bit index check for int indexes (CUDA's __sk_ix before 1dae506,
OpenCL's __sk_ix): the A/B of the 32-bit int index check."""
import runpy, sys
from safekern.frontend.c import opencl_edits, prelude
prelude._WORDS["cuda"].pop("out")
_orig = opencl_edits.index_helper
def _helper(check):
    ix, t = _orig(check)
    return ("__sk_ix", "long") if ix == "__sk_ix32" else (ix, t)
opencl_edits.index_helper = _helper
sys.argv = ["benchmarks"] + sys.argv[1:]
runpy.run_module("benchmarks", run_name="__main__")
