"""Run clij kernels (those that built ok under safekern) plainly and under safekern with
in-bounds data; compare every buffer afterwards. Writes run_clij.jsonl."""
import json
import os
import re
import sys
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import safekern  # noqa: E402
import safekern.opencl as skcl  # noqa: E402

H = os.path.dirname(os.path.abspath(__file__))
rs = [json.loads(l) for l in open(os.path.join(H, "results.jsonl"))]
plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
q = cl.CommandQueue(ctx)
OUTP = os.path.join(H, "run_clij.jsonl")
seen = set()
if os.path.exists(OUTP):
    seen = {json.loads(l)["name"] for l in open(OUTP)}
out = open(OUTP, "a")
INP = OUTP + ".inprogress"
if os.path.exists(INP):
    nm, phase = open(INP).read().split("|")
    if nm not in seen:
        out.write(json.dumps(dict(name=nm, outcome="crash-" + phase)) + "\n"); out.flush()
        seen.add(nm)
only = sys.argv[1:]


def parse_sig(txt):
    m = re.search(r"__kernel\s+void\s+(\w+)\s*\(([^)]*)\)", txt)
    name, params = m.group(1), m.group(2)
    res = []
    for p in params.split(","):
        p = p.strip()
        if not p:
            continue
        mi = re.match(r"IMAGE_(\w+)_TYPE\s+(\w+)$", p)
        if mi:
            res.append(("img", mi.group(1)))
            continue
        toks = p.replace("const ", "").split()
        res.append((toks[0], toks[-1]))
    return name, res


def make_args(params, ndims, shape_of, seed):
    rng = np.random.default_rng(seed)
    host = []
    for kind, key in params:
        if kind == "img":
            shp = shape_of(ndims[key])        # (d, h, w)
            arr = rng.random(int(np.prod(shp)), dtype=np.float32)
            host.append(("img", key, shp, arr))
        elif kind in ("float",):
            host.append(("s", np.float32(1.0)))
        elif kind in ("int", "uint", "short", "char", "long"):
            host.append(("s", {"int": np.int32, "uint": np.uint32, "short": np.int16,
                               "char": np.int8, "long": np.int64}[kind](int(os.environ.get("CLIJ_INT", "1")))))
        else:
            return None
    return host


def run(prg_factory, kname, host, gsize, checked):
    prg = prg_factory()
    args, bufs = [], []
    for h in host:
        if h[0] == "img":
            _, key, (d, hh, w), arr = h
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                            hostbuf=arr.copy())
            args += [np.int32(w), np.int32(hh), np.int32(d), buf]
            bufs.append((buf, arr.size))
        else:
            args.append(h[1])
    getattr(prg, kname)(q, gsize, None, *args)
    if checked:
        safekern.sync(q)
    res = []
    for buf, n in bufs:
        a = np.empty(n, np.float32)
        cl.enqueue_copy(q, a, buf)
        res.append(a)
    q.finish()
    return res


ndims_re = re.compile(r"int image_size_(\w+)_width")
counts = {}
for r in rs:
    if r["project"] != "clij" or r["outcome"] != "ok":
        continue
    if only and r["name"] not in only:
        continue
    if r["name"] in seen:
        continue
    src = open(os.path.join(H, "used_src", ("clij__" + r["name"]))).read()
    kernel_txt = open(os.path.join(H, "src/clij/kernels", r["name"])).read()
    try:
        kname, params = parse_sig(kernel_txt)
    except Exception:  # noqa
        continue
    # the ndim of each key as the header that built it defines it
    ndims = {k: (3 if f"POS_{k}_TYPE int4" in src else 2) for k in ndims_re.findall(src)}
    three = any(v == 3 for v in ndims.values())
    shape_of = (lambda nd: (6, 7, 5) if nd == 3 else (1, 9, 8))
    host = make_args(params, ndims, shape_of, 0)
    if host is None:
        rec = dict(name=r["name"], outcome="skipped", message="param types")
    else:
        # global size: the destination's shape (w, h[, d])
        dst = [h for h in host if h[0] == "img" and ("dst" in h[1] or "destination" in h[1])]
        d, hh, w = (dst[0] if dst else [h for h in host if h[0] == "img"][0])[2]
        gsize = (w, hh, d) if d > 1 else (w, hh)
        if not three:
            gsize = (w, hh)
        open(INP, "w").write(r["name"] + "|plain")
        try:
            plain = run(lambda: cl.Program(ctx, src).build(r["options"]), kname, host, gsize,
                        False)
        except Exception as e:  # noqa
            rec = dict(name=r["name"], outcome="plain-run-fails", message=str(e)[:300])
        else:
            open(INP, "w").write(r["name"] + "|safekern")
            try:
                chk = run(lambda: skcl.Program(ctx, src, filename=r["name"]).build(
                    r["options"]), kname, host, gsize, True)
                same = all(np.array_equal(a, b, equal_nan=True) for a, b in zip(plain, chk))
                if same:
                    rec = dict(name=r["name"], outcome="same")
                else:
                    diffs = [int((~((a == b) | (np.isnan(a) & np.isnan(b)))).sum())
                             for a, b in zip(plain, chk)]
                    rec = dict(name=r["name"], outcome="MISMATCH", message=f"diff elems {diffs}")
            except Exception as e:  # noqa
                rec = dict(name=r["name"], outcome="sk-run-error",
                           message=f"{type(e).__name__}: {str(e)[:1500]}")
    counts[rec["outcome"]] = counts.get(rec["outcome"], 0) + 1
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(rec["outcome"], rec["name"], rec.get("message", "")[:200], flush=True)
print(counts)
os.remove(INP) if os.path.exists(INP) else None
