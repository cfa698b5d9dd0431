"""Seed 543077073 (--opencl-launch on the device's PoCL 5.0): for each launch the failures of
the two builds and every output element that differs (index, with predicates, checked)."""
import os, sys, warnings
sys.path.insert(0, os.getcwd())
os.environ.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
import numpy as np
from tests.support import fuzz_launch_opencl as F
from tools.fuzz_elimination import opencl_context, UNOPTIMISED
import pyopencl as cl
class Env:
    ctx = opencl_context("pocl"); queue = cl.CommandQueue(ctx)
k = F.LaunchKernel.from_file(sys.argv[1])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for opts in ((), UNOPTIMISED):
        on, off = F.run(Env, k, True, False, opts), F.run(Env, k, False, False, opts)
        for i, ((f1, o1), (f2, o2)) in enumerate(zip(on, off)):
            d = np.nonzero(o1 != o2)[0]
            print(opts, "launch", i, "failure on", f1, "off", f2, "differ at", len(d),
                  [(int(j), int(o1[j]), int(o2[j])) for j in d[:40]])
