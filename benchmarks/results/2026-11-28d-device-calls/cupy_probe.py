"""Where CuPy's per-repetition ~0.14 ms goes: the benchmark's event timer on a few cases,
checked vs unchecked, with the checked app sync swapped for alternatives, and host timings."""
import json, os, statistics, sys, time
import numpy as np
import cupy as cp
from benchmarks import harness, modes
from benchmarks.cuda_c_cases import CupyLanguage
import safekern
from safekern import runtime

lang = CupyLanguage()
settings = harness.Settings()
out = {}
cases = sys.argv[1].split(",") if len(sys.argv) > 1 else ["saxpy", "vector_add", "jacobi"]
start, end = cp.cuda.Event(), cp.cuda.Event()

def timed(mode, kernels, plan, steps, sync, host):
    t0 = time.perf_counter()
    start.record()
    t1 = time.perf_counter()
    for i in range(steps):
        lang.launch(kernels, plan)
        if i == 0:
            t2 = time.perf_counter()
    t3 = time.perf_counter()
    sync()
    t4 = time.perf_counter()
    end.record(); end.synchronize()
    host.append((t2 - t1, (t3 - t2) / max(steps - 1, 1), t4 - t3))
    return cp.cuda.get_elapsed_time(start, end)

def stream_sync():
    cp.cuda.get_current_stream().synchronize()

def sk_sync():
    safekern.sync()

def sk_sync0():
    safekern.sync(0)

def dev_sync():
    cp.cuda.Device(0).synchronize()

def all_dev_sync():
    for d in range(cp.cuda.runtime.getDeviceCount()):
        cp.cuda.Device(d).synchronize()

def stream_then_sk():
    cp.cuda.get_current_stream().synchronize()
    safekern.sync()

for name in cases:
    case, expected = harness.host_case(name, settings)
    case = lang.adapt(case)
    dev = lang.upload(case)
    plan = case.plan(lang.plan_args(dev))
    built = {}
    for mode in (modes.UNCHECKED, modes.CHECKED):
        with modes.active(mode):
            k = lang.compile(mode, case)
            lang.launch(k, plan); lang.app_sync(mode)
        built[mode.name] = (mode, k)
    steps = {"few": 10, "many": 100}
    res = out[name] = {}
    for label, n in steps.items():
        variants = [("unchecked", "stream", stream_sync), ("checked", "sk_sync", sk_sync),
                    ("checked", "stream", stream_sync), ("checked", "sk_sync0", sk_sync0),
                    ("checked", "dev_sync", dev_sync), ("checked", "all_dev_sync", all_dev_sync),
                    ("checked", "stream_then_sk", stream_then_sk),
                    ("unchecked", "all_dev_sync", all_dev_sync)]
        samples = {f"{m}/{s}": [] for m, s, _ in variants}
        hosts = {f"{m}/{s}": [] for m, s, _ in variants}
        for rep in range(25):
            for m, s, fn in variants[rep % len(variants):] + variants[:rep % len(variants)]:
                mode, k = built[m]
                with modes.active(mode):
                    ms = timed(mode, k, plan, n, fn, hosts[f"{m}/{s}"])
                if rep >= 3:
                    samples[f"{m}/{s}"].append(ms)
        base = statistics.median(samples["unchecked/stream"])
        for key in samples:
            med = statistics.median(samples[key])
            h = hosts[key][3:]
            res[f"{label}:{key}"] = {
                "ms": round(med, 4), "minus_unchecked_ms": round(med - base, 4),
                "first_launch_us": round(statistics.median(x[0] for x in h) * 1e6, 1),
                "later_launch_us": round(statistics.median(x[1] for x in h) * 1e6, 1),
                "sync_us": round(statistics.median(x[2] for x in h) * 1e6, 1)}
            print(name, label, key, res[f"{label}:{key}"], flush=True)
    print(name, "checks", lang.check_summary(built["checked"][1]), flush=True)

# host cost of safekern.sync() pieces after the GPU is idle
import cProfile, pstats, io
mode, k = built["checked"]
with modes.active(mode):
    lang.launch(k, plan); cp.cuda.get_current_stream().synchronize()
    pr = cProfile.Profile(); pr.enable()
    for _ in range(200):
        lang.launch(k, plan); cp.cuda.get_current_stream().synchronize(); safekern.sync()
    pr.disable()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(30)
print(s.getvalue())
print("devices", cp.cuda.runtime.getDeviceCount())
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "cupy_probe.json"), "w"), indent=1)
