"""silx backproj.cl: backproj_kernel (image2d_t) and backproj_cpu_kernel (no texture), launched as
silx.opencl.backprojection.Backprojection does (wg (16,16), ndrange = dimrec/32*16, local mem
768*4 bytes, slice buffer dimrec_shape = shape rounded up to 32).

usage: probe_backproj.py compare|bug
"""
import sys

from common import (build_both, buf, cl, compare, ctx, expect_bounds_error, mf, np, queue,
                    read, record, source)

INC = ["-I", "/work/helper_ocl/src/silx/src/silx/resources/opencl"]
VARIANTS = [
    ("silx__backproj.cl", "backproj.cl", INC, ["backproj_kernel", "backproj_cpu_kernel"]),
    ("silx__combo:backproj_tex", "combo:backproj_tex", INC,
     ["backproj_kernel", "backproj_cpu_kernel"]),
    ("silx__combo:backproj_notex", "combo:backproj_notex", ["-DDONT_USE_TEXTURES"] + INC,
     ["backproj_cpu_kernel"]),
]


def idivup(a, b):
    return (a + b - 1) // b


class Setup:
    """What silx's Backprojection allocates for sino_shape (num_projs, num_bins)."""

    def __init__(self, num_projs, num_bins, seed=0, n_angles=None, slice_alloc=None):
        rng = np.random.default_rng(seed)
        self.num_projs, self.num_bins = np.int32(num_projs), np.int32(num_bins)
        self.sino = rng.random((num_projs, num_bins)).astype(np.float32)
        self.dimrec = (idivup(num_bins, 32) * 32, idivup(num_bins, 32) * 32)
        self.axis_pos = np.float32((num_bins - 1.0) / 2)
        n_angles = num_projs if n_angles is None else n_angles
        angles = np.linspace(0, np.pi, n_angles, False)
        self.cos = buf(np.cos(angles).astype(np.float32))
        self.sin = buf(np.sin(angles).astype(np.float32))
        self.axes = buf(np.ones(n_angles, dtype="f") * self.axis_pos)
        self.slice_host = np.zeros(slice_alloc or self.dimrec, np.float32)
        self.wg = (16, 16)
        self.ndrange = (idivup(self.dimrec[1], 32) * 16, idivup(self.dimrec[0], 32) * 16)
        self.local = cl.LocalMemory(256 * 3 * 4)

    def run(self, prg, kname):
        d_slice = buf(self.slice_host)
        if kname == "backproj_kernel":
            # PoCL has no INTENSITY/FLOAT image (silx's format): R/FLOAT reads the same .x
            sino_ref = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                                cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT),
                                shape=(int(self.num_bins), int(self.num_projs)),
                                hostbuf=self.sino)
        else:
            sino_ref = buf(self.sino)
        knl = getattr(prg, kname)
        knl(queue, self.ndrange, self.wg, self.num_projs, self.num_bins, self.axis_pos, d_slice,
            sino_ref, np.float32(0.0), np.float32(0.0), self.cos, self.sin, self.axes, self.local)
        return d_slice


def do_compare():
    for used, fname, opts, kernels in VARIANTS:
        src = source(used)
        plain, checked, msgs = build_both(src, opts, fname)
        record(program=fname, kernel="*", builds_plain=plain is not None,
               builds_checked=checked is not None, **msgs)
        if plain is None or checked is None:
            continue
        for kname in kernels:
            # 300 projections: the shared-memory reload under `if(proj>=read)` runs twice and
            # the second time only 44 of the 256 work-items load; 80 bins: dimrec 96 x 96
            for (np_, nb) in [(300, 80), (100, 64), (513, 40)]:
                s = Setup(np_, nb, seed=np_)
                out_p = read(s.run(plain, kname), s.slice_host)
                out_c = read(s.run(checked, kname), s.slice_host)
                queue.finish()
                record(program=fname, kernel=kname, sino_shape=(np_, nb), ndrange=s.ndrange,
                       wg=s.wg, nonzero=int(np.count_nonzero(out_p)),
                       **compare("d_SLICE", out_p, out_c))


def do_bug():
    src = source("silx__backproj.cl")
    _, checked, msgs = build_both(src, INC, "backproj.cl")
    for kname in ["backproj_cpu_kernel", "backproj_kernel"]:
        # 1) slice buffer allocated with slice_shape (80 x 80), not dimrec_shape (96 x 96)
        s = Setup(300, 80, slice_alloc=(80, 80))
        expect_bounds_error(f"backproj.cl {kname}: d_SLICE allocated 80x80 instead of 96x96",
                            lambda: s.run(checked, kname), queue.finish)
        # 2) angle arrays computed for 250 angles while num_proj=300
        s = Setup(300, 80, n_angles=250)
        expect_bounds_error(f"backproj.cl {kname}: d_cos/d_sin/d_axes of 250 for 300 projections",
                            lambda: s.run(checked, kname),
                            lambda: cl.enqueue_copy(queue, np.empty(1, np.float32),
                                                    s.cos))
    # 3) cpu kernel: sinogram buffer smaller than num_proj rows (access inside a macro)
    s = Setup(300, 80)
    s.sino = s.sino[:200]
    expect_bounds_error("backproj.cl backproj_cpu_kernel: d_sino of 200 rows for num_proj=300 "
                        "(access written in macro ADJACENT_PIXELS_VALS)",
                        lambda: s.run(checked, "backproj_cpu_kernel"), queue.finish)
    # 4) LocalMemory too small: the kernel never touches shared2, so nothing to report
    s = Setup(300, 80)
    s.local = cl.LocalMemory(16)
    expect_bounds_error("backproj.cl backproj_cpu_kernel: LocalMemory(16) for shared2 (unused "
                        "by the kernel; expect no error)",
                        lambda: s.run(checked, "backproj_cpu_kernel"), queue.finish)


if __name__ == "__main__":
    {"compare": do_compare, "bug": do_bug}[sys.argv[1]]()
