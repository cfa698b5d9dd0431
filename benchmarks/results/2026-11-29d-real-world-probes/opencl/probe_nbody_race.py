"""Follow-up of probe_nbody.py: FP64/Potential/CorRad with 64 particles differs after the
integration steps. Are the differences the example's own cross-work-group race (method kernels
read all of clDataX, then write clDataX[gid] after a work-group barrier only)? Run the same steps
with explicit local sizes (64,1) (one work-group: no race) and (16,1), and also plain vs plain."""
import sys
from common import cl, compare, np, queue, record
from probe_nbody import FNAME, SRC, Sim, build_both, options

opts = options(1, 1, 2)
plain, checked, _ = build_both(SRC, opts, FNAME)
plain2 = cl.Program(plain.context, SRC).build(options=opts)
for method in ("ImplicitEuler", "RungeKutta"):
    for local in (None, (64, 1), (16, 1)):
        runs = []
        for prg in (plain, plain2, checked):
            s = Sim(prg, 64, np.float64)
            s.init("Box")
            for _ in range(3):
                getattr(prg, method)(queue, (64, 1), local, s.X, s.V, np.float64(1 / 32)).wait()
            runs.append(s.get()["X"])
        queue.finish()
        record(program=FNAME, options=opts, number=64, method=method, local=local,
               plain_vs_plain=compare("X", runs[0], runs[1]),
               plain_vs_checked=compare("X", runs[0], runs[2]))
kn = checked.ImplicitEuler
kp = plain.ImplicitEuler
dev = plain.context.devices[0]
for name, k in (("plain", kp), ("checked", kn)):
    record(kernel="ImplicitEuler", which=name,
           wg_size=k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, dev),
           pref_multiple=k.get_work_group_info(
               cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, dev))
