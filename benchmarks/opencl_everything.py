"""What "check everything" (`safekern.opencl.install()`) costs pyopencl.array arithmetic.

    python -m benchmarks.opencl_everything [--n 16777216] [--reps 30] [--quick] [--out DIR]

PyOpenCL's array operations build their own programs (elementwise, reduction, take). Under
`safekern.opencl.install()` those programs are checked too. Two contexts on one device: one
plain, one whose operations were first run (so built) under `install()` -- PyOpenCL memoizes
its kernels per context, so each context keeps its kind. Per operation:

- `first call`: wall time of the first call in each context (the program's build: for the
  checked one the rewrite too; PyOpenCL's and safekern's disk caches as the machine has them);
- `per call`: median wall time of one call and `queue.finish()` over `--reps`, after warm-up,
  plain and checked interleaved; the checked context's failure buffers are read
  (`safekern.sync()`) after every call, as `Array.get()` would.

Every result is compared with NumPy's. The device is NVIDIA's when its platform is there
(backends.opencl_device); on a CPU (PoCL) the times say nothing about a GPU.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from .backends import opencl_device, opencl_device_name, opencl_on_cpu


def _ops(cla, q, a, b, idx):
    """name -> (the call, what NumPy says it gives)."""
    ah, bh, ih = a.get(), b.get(), idx.get()
    return {
        "a + b": (lambda: a + b, ah + bh),
        "2*a + 3*b (axpbyz)": (lambda: 2 * a + 3 * b, 2 * ah + 3 * bh),
        "a * b": (lambda: a * b, ah * bh),
        "cla.sum(a)": (lambda: cla.sum(a), ah.sum(dtype=np.float32)),
        "cla.take(a, idx)": (lambda: cla.take(a, idx), ah[ih]),
    }


def _setup(cl, cla, device, n):
    ctx = cl.Context([device])
    q = cl.CommandQueue(ctx)
    rng = np.random.default_rng(0)
    a = cla.to_device(q, rng.random(n, dtype=np.float32))
    b = cla.to_device(q, rng.random(n, dtype=np.float32))
    idx = cla.to_device(q, rng.integers(0, n, n, dtype=np.int32))
    return q, _ops(cla, q, a, b, idx)


def bench(n: int, reps: int, warmup: int) -> dict:
    device, why = opencl_device()
    if device is None:
        return {"skipped": why}
    import pyopencl as cl
    import pyopencl.array as cla

    import safekern
    import safekern.opencl as skcl

    q_plain, plain = _setup(cl, cla, device, n)
    q_checked, checked = None, None
    first: dict = {}
    verified: dict = {}
    skcl.install()
    try:
        q_checked, checked = _setup(cl, cla, device, n)
        for name, (call, _) in checked.items():
            t0 = time.perf_counter()
            call()
            q_checked.finish()
            safekern.sync()
            first[name] = {"checked": round((time.perf_counter() - t0) * 1e3, 1)}
    finally:
        skcl.uninstall()
    for name, (call, _) in plain.items():
        t0 = time.perf_counter()
        call()
        q_plain.finish()
        first[name]["plain"] = round((time.perf_counter() - t0) * 1e3, 1)
    times: dict = {}
    for name in plain:
        runs = {"plain": (plain[name][0], q_plain, False),
                "checked": (checked[name][0], q_checked, True)}
        for mode, (call, q, sync) in runs.items():
            got = call()
            q.finish()
            if sync:
                safekern.sync()
            want = plain[name][1]
            got = got.get()
            verified[f"{name}, {mode}"] = bool(np.allclose(got, want, rtol=1e-3))
        samples = {"plain": [], "checked": []}
        for rep in range(warmup + reps):
            for mode, (call, q, sync) in runs.items():
                t0 = time.perf_counter()
                call()
                q.finish()
                if sync:
                    safekern.sync()
                if rep >= warmup:
                    samples[mode].append((time.perf_counter() - t0) * 1e3)
        times[name] = {m: {"median_ms": round(statistics.median(s), 4),
                           "min_ms": round(min(s), 4)} for m, s in samples.items()}
    result = {"times": times, "first_call_ms": first, "verified": verified,
              "device": opencl_device_name(device)}
    if opencl_on_cpu(device):
        result["note"] = "a CPU device: the times say nothing about a GPU"
    return result


def markdown(result: dict, meta: dict) -> str:
    lines = [f"# \"Check everything\" on pyopencl.array arithmetic ({meta['date']})", "",
             f"`{meta['command']}`; n = {meta['n']} float32 elements; median of {meta['reps']} "
             "calls (host wall time of the call, `queue.finish()` and, checked, "
             "`safekern.sync()`), plain and checked interleaved.", ""]
    if "skipped" in result:
        return "\n".join(lines + [f"skipped: {result['skipped']}", ""])
    lines += [f"Device: {result['device']}", "",
              "| operation | plain (ms) | checked (ms) | checked / plain | first call plain "
              "(ms) | first call checked (ms) | verified |",
              "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for name, t in result["times"].items():
        p, c = t["plain"]["median_ms"], t["checked"]["median_ms"]
        ok = result["verified"][f"{name}, plain"] and result["verified"][f"{name}, checked"]
        f = result["first_call_ms"][name]
        lines.append(f"| `{name}` | {p} | {c} | {c / p if p else float('nan'):.2f} | "
                     f"{f['plain']} | {f['checked']} | {ok} |")
    if "note" in result:
        lines += ["", result["note"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.opencl_everything",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24, help="elements (default 16M)")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a smoke run: n=4096, 3 reps")
    parser.add_argument("--out", default=None, help="directory for the .json and .md results")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.reps, args.warmup = 4096, 3, 1
    result = bench(args.n, args.reps, args.warmup)
    meta = {"date": time.strftime("%Y-%m-%d"), "n": args.n, "reps": args.reps,
            "python": platform.python_version(),
            "command": "python -m benchmarks.opencl_everything " + " ".join(
                argv if argv is not None else sys.argv[1:])}
    text = markdown(result, meta)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        stem = os.path.join(args.out, f"opencl_everything-{meta['date']}")
        with open(stem + ".json", "w") as f:
            json.dump({"meta": meta, "result": result}, f, indent=1)
        with open(stem + ".md", "w") as f:
            f.write(text)
    wrong = [k for k, ok in result.get("verified", {}).items() if not ok]
    if wrong:
        print("wrong results: " + ", ".join(wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
