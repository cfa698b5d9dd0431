"""PyOpenCL example n-body.py, first program (helper AtomicPotential with a barrier), launched as
the example's main does: InBallSplutterPoints / InBoxSplutterPoints (Number,1), CenterOfMass
(1,1), SplutterStress (viriel: velocity 0 -> AtomicPotential), Potential, Kinetic, then
Iterations x Method (RungeKutta / ExplicitEuler / Heun / ImplicitEuler), then CenterOfMass,
Potential, Kinetic; local size None as in the example.

usage: probe_nbody.py compare|bug
"""
import sys

from common import (build_both, cl, compare, ctx, expect_bounds_error, mf, np, queue, record,
                    source)

SRC = source("pyopencl-examples__n-body.py#0")
FNAME = "n-body.py#0"
MARS = {"CONG": 0, "SHR3": 1, "MWC": 2, "KISS": 3}


def options(vtype, inter, artev, rng="MWC"):
    return ("-cl-mad-enable -cl-fast-relaxed-math -DTRNG=%i -DTYPE=%i -DINTERACTION=%i "
            "-DARTEVASION=%i" % (MARS[rng], vtype, inter, artev))


class Sim:
    def __init__(self, prg, number, ftype, n_alloc=None):
        self.prg, self.N, self.f = prg, number, ftype
        n_alloc = number if n_alloc is None else n_alloc
        nb = np.dtype(ftype).itemsize
        self.X = cl.Buffer(ctx, mf.READ_WRITE, n_alloc * 4 * nb)
        self.V = cl.Buffer(ctx, mf.READ_WRITE, n_alloc * 4 * nb)
        self.P = cl.Buffer(ctx, mf.READ_WRITE, n_alloc * nb)
        self.K = cl.Buffer(ctx, mf.READ_WRITE, n_alloc * nb)
        self.C = cl.Buffer(ctx, mf.READ_WRITE, 4 * nb)

    def get(self):
        f, N = self.f, self.N
        out = {"X": np.zeros(N * 4, f), "V": np.zeros(N * 4, f), "P": np.zeros(N, f),
               "K": np.zeros(N, f), "CoM": np.zeros(4, f)}
        for k, b in zip(out, (self.X, self.V, self.P, self.K, self.C)):
            cl.enqueue_copy(queue, out[k], b)
        return out

    def init(self, shape="Ball", size=1.0, velocity=0.0):
        p, N, f = self.prg, self.N, self.f
        size = f(np.sqrt(f(size * N)))
        seed_w, seed_z = np.uint32(19710211), np.uint32(20081010)
        knl = p.InBallSplutterPoints if shape == "Ball" else p.InBoxSplutterPoints
        knl(queue, (N, 1), None, self.X, size, seed_w, seed_z)
        p.CenterOfMass(queue, (1, 1), None, self.X, self.C, np.int32(N)).wait()
        p.SplutterStress(queue, (N, 1), None, self.X, self.V, self.C, f(velocity),
                         np.uint32(110271), np.uint32(250173)).wait()
        p.Potential(queue, (N, 1), None, self.X, self.P)
        p.Kinetic(queue, (N, 1), None, self.V, self.K).wait()

    def step(self, method, dt=1.0 / 32):
        getattr(self.prg, method)(queue, (self.N, 1), None, self.X, self.V, self.f(dt)).wait()

    def energies(self):
        p, N = self.prg, self.N
        p.CenterOfMass(queue, (1, 1), None, self.X, self.C, np.int32(N))
        p.Potential(queue, (N, 1), None, self.X, self.P)
        p.Kinetic(queue, (N, 1), None, self.V, self.K).wait()


CONFIGS = [  # (vtype FP32=0/FP64=1, INTERACTION Force=0/Potential=1, ARTEVASION, shape, ftype)
    (0, 0, 0, "Ball", np.float32),
    (1, 1, 2, "Box", np.float64),
]


def do_compare():
    for vtype, inter, artev, shape, ftype in CONFIGS:
        opts = options(vtype, inter, artev)
        plain, checked, msgs = build_both(SRC, opts, FNAME)
        record(program=FNAME, options=opts, kernel="*", builds_plain=plain is not None,
               builds_checked=checked is not None, **msgs)
        if plain is None or checked is None:
            continue
        for number in (2, 64, 100):
            for method in ("ImplicitEuler", "RungeKutta", "ExplicitEuler", "Heun"):
                sims = [Sim(plain, number, ftype), Sim(checked, number, ftype)]
                for s in sims:
                    s.init(shape)
                init = [s.get() for s in sims]
                for s in sims:
                    for _ in range(3):
                        s.step(method)
                    s.energies()
                fin = [s.get() for s in sims]
                queue.finish()
                ok_init = {k: compare(k, init[0][k], init[1][k]) for k in init[0]}
                ok_fin = {k: compare(k, fin[0][k], fin[1][k]) for k in fin[0]}
                bad = {k: v for k, v in {**{"init_" + k: v for k, v in ok_init.items()},
                                        **{"final_" + k: v for k, v in ok_fin.items()}}.items()
                       if not v["exact"]}
                record(program=FNAME, options=opts, number=number, method=method,
                       kernels="%sSplutterPoints,CenterOfMass,SplutterStress,Potential,Kinetic,"
                               "%s x3" % (shape, method),
                       all_exact=not bad, mismatches=bad,
                       finite=bool(all(np.isfinite(v).all() for v in fin[0].values())))


def do_bug():
    opts = options(0, 0, 0)
    _, checked, _ = build_both(SRC, opts, FNAME)
    # 1) CenterOfMass's Size off by one
    s = Sim(checked, 64, np.float32)
    expect_bounds_error("n-body CenterOfMass: Size=N+1",
                        lambda: checked.CenterOfMass(queue, (1, 1), None, s.X, s.C,
                                                     np.int32(65)),
                        lambda: cl.enqueue_copy(queue, np.zeros(4, np.float32), s.C))
    # 2) more particles launched than allocated (buffers from an earlier, smaller run):
    #    SplutterStress -> helper AtomicPotential (barrier) reads clDataX[i] for i < 64
    s = Sim(checked, 48, np.float32)
    s.init()
    queue.finish()
    expect_bounds_error("n-body SplutterStress (AtomicPotential helper): 64 work-items, buffers "
                        "of 48 particles",
                        lambda: checked.SplutterStress(queue, (64, 1), None, s.X, s.V, s.C,
                                                       np.float32(0.0), np.uint32(110271),
                                                       np.uint32(250173)),
                        queue.finish)
    # 3) program built for FP64 (-DTYPE=1) while the host buffers hold float32
    opts64 = options(1, 0, 0)
    _, checked64, _ = build_both(SRC, opts64, FNAME)
    # (scalars are float64 as the kernel needs; the buffers have float32 sizes: 64 particles
    # of 4 float32 = 32 double4). A float32 scalar fails in clSetKernelArg (INVALID_ARG_SIZE),
    # plain and checked alike.
    s = Sim(checked64, 64, np.float64, n_alloc=32)
    expect_bounds_error("n-body FP64 build with float32-sized buffers: InBallSplutterPoints",
                        lambda: s.init(), queue.finish)
    # 4) RungeKutta over N+16 work-items on buffers of N
    s = Sim(checked, 48, np.float32)
    s.init()
    queue.finish()
    expect_bounds_error("n-body RungeKutta: 64 work-items, buffers of 48",
                        lambda: checked.RungeKutta(queue, (64, 1), None, s.X, s.V,
                                                   np.float32(1 / 32)),
                        queue.finish)


if __name__ == "__main__":
    {"compare": do_compare, "bug": do_bug}[sys.argv[1]]()
