"""Seed 500702257 of the launch fuzzer as generated and with its int product made in long: the
second build agrees (README.md). Run from a checkout: PYTHONPATH=. python THIS_FILE."""
import os, warnings
os.environ.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
from tests.support import fuzz_launch_opencl as F
from tools.fuzz_elimination import opencl_context
import pyopencl as cl
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lfuzz_500702257.cl")
class Env:
    ctx = opencl_context("pocl"); queue = cl.CommandQueue(ctx)
k = F.LaunchKernel.from_file(path)
fixed = F.LaunchKernel(k.seed, k.source.replace("((64 * (int)u) * 2)", "((64L * (int)u) * 2)"),
                       k.name, k.launches)
assert fixed.source != k.source
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print("as generated:", F.differences(Env, k))
    print("64L * (int)u, no int overflow:", F.differences(Env, fixed))
