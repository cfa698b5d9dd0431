"""Run every program of programs.json: plain PyOpenCL build, then safekern.opencl.Program build.
Appends to results.jsonl (resumable; a program in progress when the process died is recorded as
`crash`)."""
import json
import os
import sys
import time
import traceback
import warnings

os.environ.setdefault("PYOPENCL_TEST", "portable")
os.environ.setdefault("SAFEKERN_CACHE", "/work/helper_ocl/skcache")
warnings.filterwarnings("ignore")

import pyopencl as cl  # noqa: E402

import safekern.opencl as skcl  # noqa: E402
from safekern.errors import CompilationError, InternalError, UnsupportedError  # noqa: E402

H = os.path.dirname(os.path.abspath(__file__))
RES = os.path.join(H, sys.argv[1] if len(sys.argv) > 1 else "results.jsonl")
PROG = os.path.join(H, "programs.json")
INPROG = RES + ".inprogress"

progs = json.load(open(PROG))
done = set()
if os.path.exists(RES):
    for line in open(RES):
        r = json.loads(line)
        done.add((r["project"], r["name"]))
out = open(RES, "a")
if os.path.exists(INPROG):
    key = json.load(open(INPROG))
    if tuple(key) not in done:
        out.write(json.dumps(dict(project=key[0], name=key[1], outcome="crash",
                                  message="process died")) + "\n")
        out.flush()
        done.add(tuple(key))

plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
dev = ctx.devices[0]


def first_error(text):
    lines = [ln for ln in str(text).splitlines() if "error" in ln.lower()]
    return (lines[0] if lines else str(text).splitlines()[0] if text else "").strip()[:400]


def plain(src, opts):
    prg = cl.Program(ctx, src)
    try:
        prg.build(opts)
        return None
    except cl.Error:
        try:
            return first_error(prg.get_build_info(dev, cl.program_build_info.LOG))
        except Exception as e:  # noqa
            return repr(e)


for p in progs:
    key = (p["project"], p["name"])
    if key in done:
        continue
    json.dump(list(key), open(INPROG, "w"))
    inc = ["-I", p["include"]] if p.get("include") else []
    rec = dict(project=p["project"], name=p["name"])
    t0 = time.time()
    opts = None
    errs = []
    source = p["source"]
    for v in p["variants"]:
        src = v["source"] if isinstance(v, dict) else p["source"]
        vo = v["options"] if isinstance(v, dict) else v
        e = plain(src, list(vo) + inc)
        if e is None:
            opts = list(vo) + inc
            source = src
            break
        errs.append(e)
    if opts is None:
        rec.update(outcome="original-fails", message=errs[-1])
    else:
        rec["options"] = opts
        rec["variant"] = p["variants"].index(v)
        open(os.path.join(H, "used_src", (p["project"] + "__" + p["name"]).replace("/", "_")
                          .replace(" ", "_")), "w").write(source)
        t1 = time.time()
        try:
            skcl.Program(ctx, source, filename=p["name"].replace(" ", "_")).build(opts)
            rec.update(outcome="ok", message="")
        except UnsupportedError as e:
            rec.update(outcome="refused", message=str(e)[:1500])
        except InternalError as e:
            rec.update(outcome="internal", message=str(e)[:3000])
        except CompilationError as e:
            rec.update(outcome="broken" if "OpenCL build failed" in e.problem
                       or "driver failed" in e.problem else "compilation-error",
                       message=str(e)[:3000])
        except Exception as e:  # noqa
            rec.update(outcome="internal", message="".join(
                traceback.format_exception(type(e), e, e.__traceback__))[-3000:])
        rec["sk_time"] = round(time.time() - t1, 2)
    rec["time"] = round(time.time() - t0, 2)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(rec["outcome"], key, rec["time"], flush=True)
os.remove(INPROG) if os.path.exists(INPROG) else None
print("DONE")
