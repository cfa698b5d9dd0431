"""Shared helpers for the probe scripts: PoCL context, plain + checked builds, result records."""
import json
import os
import sys
import time
import traceback
import warnings

os.environ["SAFEKERN_CACHE"] = "/tmp/probe2-cache"
import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import safekern  # noqa: E402
import safekern.opencl as skcl  # noqa: E402

H = os.path.dirname(os.path.abspath(__file__))
USED = "/work/helper_ocl/used_src"
plat = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(plat.get_devices()[:1])
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
RESULTS = os.path.join(H, "results.jsonl")


def source(name):
    with open(os.path.join(USED, name)) as f:
        return f.read()


def build_both(src, options, filename):
    """-> (plain program or None, checked program or None, messages dict)"""
    msgs = {}
    plain = checked = None
    t = time.time()
    try:
        plain = cl.Program(ctx, src).build(options=options)
    except Exception as e:  # noqa: BLE001
        msgs["plain"] = f"{type(e).__name__}: {e}"
    msgs["plain_s"] = round(time.time() - t, 2)
    t = time.time()
    try:
        checked = skcl.Program(ctx, src, filename=filename).build(options=options)
    except Exception as e:  # noqa: BLE001
        msgs["checked"] = f"{type(e).__name__}: {e}"
    msgs["checked_s"] = round(time.time() - t, 2)
    return plain, checked, msgs


def buf(a):
    a = np.ascontiguousarray(a)
    return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)


def read(b, like):
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, b)
    return out


def compare(name, a, b):
    """Exact comparison, plus the max abs difference if not exact."""
    a = np.asarray(a)
    b = np.asarray(b)
    exact = a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    d = {"array": name, "exact": bool(exact)}
    if not exact and a.shape == b.shape:
        with np.errstate(invalid="ignore"):
            diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        d["max_abs_diff"] = float(np.nanmax(diff)) if diff.size else 0.0
        d["max_abs"] = float(np.nanmax(np.abs(a))) if a.size else 0.0
        d["n_diff"] = int(np.count_nonzero(diff))
        d["allclose_1e-5"] = bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    return d


def record(**kw):
    kw["time"] = time.strftime("%H:%M:%S")
    print(json.dumps(kw, default=str), flush=True)
    with open(RESULTS, "a") as f:
        f.write(json.dumps(kw, default=str) + "\n")


def expect_bounds_error(label, launch, sync):
    """Run launch(); then sync(); record what is raised (and where)."""
    where = "launch"
    try:
        launch()
        where = "sync"
        sync()
        where = "none"
        record(probe=label, bug_reported=False, message="no exception")
    except safekern.BoundsError as e:
        fields = {k: getattr(e, k, None) for k in ("kernel", "filename", "lineno", "array",
                                                    "axis", "index", "size", "thread", "block")}
        record(probe=label, bug_reported=True, raised_at=where, fields=fields, message=str(e))
    except Exception as e:  # noqa: BLE001
        record(probe=label, bug_reported=False, raised_at=where,
               message=f"{type(e).__name__}: {e}", tb=traceback.format_exc()[-2000:])
    # a failure must not leak into the next probe
    try:
        safekern.sync()
    except Exception as e:  # noqa: BLE001
        record(probe=label + " (leftover at extra sync)", message=f"{type(e).__name__}: {e}")
