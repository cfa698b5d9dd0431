"""Seed 543077073's launch 2 (64 items in groups of 32, n=3, u=5, w=2**63) run with plain
PyOpenCL -- no safekern -- on the texts safekern built (checked, and the three launch variants)
and on the user's own source: res per work-item, on PoCL optimised, PoCL -cl-opt-disable and
NVIDIA's OpenCL. A text that gives different res on PoCL optimised than on the other two, with no
undefined behaviour in it, is a PoCL miscompile."""
import os, sys, warnings
sys.path.insert(0, os.getcwd())
os.environ.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
import numpy as np
import pyopencl as cl
from tools.fuzz_elimination import opencl_context
here = os.path.dirname(os.path.abspath(__file__))   # (the device call read .wt/lead5/cases/)
user = "".join(l for l in open(os.path.join(here, "lfuzz_543077073.cl")) if not l.startswith("//"))
texts = {"user": user}
for name in ("checked", "variant1", "variant2", "variant3"):
    texts[name] = open(os.path.join(here, name + ".cl")).read()
warnings.simplefilter("ignore")
for plat in sys.argv[1:]:
    try:
        ctx = opencl_context(plat)
    except SystemExit as e:
        print(plat, e); continue
    q = cl.CommandQueue(ctx)
    dev = ctx.devices[0]
    for opts in ([], ["-cl-opt-disable"]):
        for name, text in texts.items():
            mf = cl.mem_flags
            out = np.full(1024, -1, np.int32); a = (np.arange(1024, dtype=np.int32) * 7) % 13
            res = np.full(64, -1, np.int32); fb = np.zeros(64, np.int64)
            bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=x) for x in (out, a, res, fb)]
            prg = cl.Program(ctx, text).build(options=opts)
            k = getattr(prg, "lk543077073")
            args = [bufs[0], bufs[1], np.int32(3), np.uint32(5), np.uint64(2 ** 63), bufs[2]]
            if name != "user":
                args += [bufs[3], np.int64(4096), np.int64(4096), np.int64(256)]
            k(q, (64,), (32,), *args)
            cl.enqueue_copy(q, res, bufs[2]); cl.enqueue_copy(q, fb, bufs[3]); q.finish()
            print(f"{dev.platform.name[:12]:12} {' '.join(opts) or 'optimised':16} {name:9} "
                  f"fb[0]={fb[0]} res={res.tolist()}")
