"""Launch rw_perlin's step a few times in one mode (argv[1]: unchecked or checked), for ncu."""
import sys

from numba import cuda

from benchmarks import cases, modes
from benchmarks.harness import run_step

mode = modes.MODES[sys.argv[1]]
case = cases.build("rw_perlin", False)
with modes.active(mode):
    built = {k: modes.decorate(mode, fn) for k, fn in case.kernels.items()}
    dev = {k: cuda.to_device(v) for k, v in case.arrays.items()}
    plan = case.plan(dev)
    for _ in range(3):
        run_step(built, plan)
    modes.app_sync(mode)
