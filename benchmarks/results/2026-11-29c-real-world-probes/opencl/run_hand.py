"""Hand-picked kernels of silx / gputools / pyopencl examples: run plain vs safekern with
in-bounds data, compare every buffer. Writes run_hand.jsonl."""
import json
import os
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.cltypes as clt  # noqa: E402

import safekern  # noqa: E402
import safekern.opencl as skcl  # noqa: E402

H = os.path.dirname(os.path.abspath(__file__))
S = os.path.join(H, "src")
plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
q = cl.CommandQueue(ctx)
rng = np.random.default_rng(1)
progs = {(p["project"], p["name"]): p for p in json.load(open(os.path.join(H, "programs.json")))}


def silx(rel):
    p = progs[("silx", rel)]
    return p["source"]


def gt(rel):
    return progs[("gputools", rel)]["source"]


def ex(name):
    return progs[("pyopencl-examples", name)]["source"]


def R(*shape, dtype=np.float32):
    return rng.random(shape).astype(dtype)


class Buf:
    def __init__(self, a):
        self.a = np.ascontiguousarray(a)


class Local:
    def __init__(self, nbytes):
        self.nbytes = nbytes


# (label, source, options, [(kernel, gsize, lsize, args)])  -- launches run in order on the
# same buffers
N = 100
a, b = R(N), R(N)
img = R(11, 13)
grad = R(11, 13, 2)
CASES = [
    ("silx addition.cl", silx("addition.cl"), [],
     [("addition", (128,), None, [Buf(a), Buf(b), Buf(np.zeros(N, np.float32)), np.int32(N)])]),
    ("silx linalg.cl gradient+divergence", silx("linalg.cl"), [],
     [("kern_gradient2D", (16, 16), None, [Buf(img), Buf(np.zeros((11, 13, 2), np.float32)),
                                           np.int32(13), np.int32(11)]),
      ("kern_divergence2D", (16, 16), None, [Buf(grad), Buf(np.zeros((11, 13), np.float32)),
                                             np.int32(13), np.int32(11)])]),
    ("silx array_utils.cl cpy2d + complex mul", silx("array_utils.cl"), [],
     [("cpy2d", (5, 4), None, [Buf(np.zeros((10, 12), np.float32)), Buf(R(9, 11)),
                               np.int32(12), np.int32(11), clt.make_int2(2, 3),
                               clt.make_int2(1, 2), clt.make_int2(5, 4)]),
      ("inplace_complex_mul_2Dby1D", (8, 6), None, [Buf(R(6, 7, 2)), Buf(R(7, 2)), np.int32(7),
                                                    np.int32(6)])]),
    ("gputools convolve_sep.cl 2d y then x", gt("convolve/kernels/convolve_sep.cl"),
     ["-D", "DTYPE=float"],
     [("conv_sep2_y", (13, 11), None, [Buf(img), Buf(R(5)), Buf(np.zeros((11, 13), np.float32)),
                                       np.int32(5), np.int32(11), np.int32(1)]),
      ("conv_sep2_x", (13, 11), None, [Buf(img), Buf(R(3)), Buf(np.zeros((11, 13), np.float32)),
                                       np.int32(3), np.int32(13), np.int32(1)])]),
    ("gputools fftshift.cl 1_f", gt("fft/kernels/fftshift.cl"), [],
     [("fftshift_1_f", (3, 4, 2), None, [Buf(R(2, 8, 3)), Buf(np.zeros((2, 8, 3), np.float32)),
                                         np.int32(8), np.int32(3)])]),
    ("pyopencl demo.py sum", ex("demo.py#0"), [],
     [("sum", (N,), None, [Buf(a), Buf(b), Buf(np.zeros(N, np.float32))])]),
    ("pyopencl narray.py", ex("narray.py#0"), [],
     [("demo", (20,), None, [Buf(np.zeros(100, np.uint32))])]),
    ("pyopencl transpose.py#0", ex("transpose.py#0"), [],
     [("transpose", (16, 8), None, [Buf(np.zeros((16, 8), np.float32)), Buf(R(8, 16)),
                                    np.uint32(16), np.uint32(8)])]),
    ("pyopencl transpose.py#1 block16", ex("transpose.py#1") % {"block_size": 16}, [],
     [("transpose", (32, 16), (16, 16), [Buf(np.zeros((32, 16), np.float32)), Buf(R(16, 32)),
                                         np.uint32(32), np.uint32(16),
                                         Local(16 * 17 * 4)])]),
    ("pyopencl demo_mandelbrot.py", ex("demo_mandelbrot.py#0"), [],
     [("mandelbrot", (64,), None, [Buf((R(64, 2) * 4 - 2).astype(np.float32)),
                                   Buf(np.zeros(64, np.uint16)), np.uint16(30)])]),
    ("pyopencl median-filter.py", ex("median-filter.py#0"), [],
     [("medianFilter", (11, 13), None, [Buf(R(11, 13) * 100), Buf(np.zeros((11, 13), np.float32)),
                                        Buf(np.array([13], np.int32)),
                                        Buf(np.array([11], np.int32))])]),
]


def run(prg, launches, checked):
    bufs = {}
    results = []
    for kname, gs, ls, args in launches:
        cargs = []
        for x in args:
            if isinstance(x, Buf):
                if id(x) not in bufs:
                    bufs[id(x)] = (cl.Buffer(ctx, cl.mem_flags.READ_WRITE |
                                             cl.mem_flags.COPY_HOST_PTR, hostbuf=x.a.copy()), x)
                cargs.append(bufs[id(x)][0])
            elif isinstance(x, Local):
                cargs.append(cl.LocalMemory(x.nbytes))
            else:
                cargs.append(x)
        getattr(prg, kname)(q, gs, ls, *cargs)
    if checked:
        safekern.sync(q)
    for buf, x in bufs.values():
        o = np.empty_like(x.a)
        cl.enqueue_copy(q, o, buf)
        results.append(o)
    q.finish()
    return results


out = open(os.path.join(H, "run_hand.jsonl"), "w")
for label, src, opts, launches in CASES:
    try:
        plain = run(cl.Program(ctx, src).build(opts), launches, False)
    except Exception as e:  # noqa
        rec = dict(name=label, outcome="plain-fails", message=str(e)[:300])
    else:
        try:
            chk = run(skcl.Program(ctx, src, filename=label.split()[1]).build(opts), launches,
                      True)
            diffs = [int((~((x == y) | (np.isnan(x) & np.isnan(y)))).sum())
                     for x, y in zip(plain, chk)]
            rec = dict(name=label, outcome="same" if not any(diffs) else "MISMATCH",
                       message=f"diff elems {diffs}" if any(diffs) else "")
        except Exception as e:  # noqa
            rec = dict(name=label, outcome="sk-error", message=f"{type(e).__name__}: {e}"[:1500])
    out.write(json.dumps(rec) + "\n")
    print(rec["outcome"], rec["name"], rec["message"][:400], flush=True)
