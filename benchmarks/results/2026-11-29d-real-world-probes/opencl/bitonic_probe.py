import numpy as np, pyopencl as cl, pyopencl.array as cla, safekern, safekern.opencl as skcl, sys
src = open('/work/helper_ocl/used_src/silx__bitonic.cl').read()
plat=[p for p in cl.get_platforms() if "Portable" in p.name][0]; ctx=cl.Context(plat.get_devices()[:1]); q=cl.CommandQueue(ctx)
wg, ng = 64, 4
x = np.random.default_rng(0).random(8*wg*ng).astype(np.float32)
res = {}
for name, P in (("plain", cl.Program), ("checked", skcl.Program)):
    prg = P(ctx, src).build()
    for kern in ("bsort_all", "bsort_file"):
      if not hasattr(prg, kern): continue
      d = cla.to_device(q, x.reshape(-1, 4))
      getattr(prg, kern)(q, (wg*ng,), (wg,), d.data, cl.LocalMemory(8*wg*4))
      res[name, kern] = d.get().ravel()
    safekern.sync()
for kern in ("bsort_all", "bsort_file"):
    if ("plain", kern) in res:
        print(kern, np.array_equal(res["plain", kern], res["checked", kern]), res["plain",kern][:4], np.sort(x[:512])[:4])
prg = skcl.Program(ctx, src).build()
d = cla.to_device(q, x.reshape(-1, 4))
prg.bsort_all(q, (wg*ng,), (wg,), d.data, cl.LocalMemory(8*wg*4 - 16))
try:
    safekern.sync(); print("no error")
except IndexError as e: print(type(e).__name__, e)
