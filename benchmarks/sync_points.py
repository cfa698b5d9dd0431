"""Host time of numba-cuda's sync points with safekern's hooks in and out.

    python -m benchmarks.sync_points [--reps 2000] [--batches 15] [--out DIR]

Per call, median over batches (modes interleaved batch by batch):
- `plain`: numba's own `copy_to_host()` / `cuda.synchronize()` (hooks uninstalled);
- `hooked, nothing pending`: the same calls with safekern's sync points installed and no checked
  kernel launched since the last check (the case that must cost nothing measurable);
- `hooked, after a checked launch`: each call preceded by an empty checked launch, so the hook
  synchronises and reads the failure buffer (the launch is timed separately and subtracted).
Runs on the simulator too (a smoke run; its figures mean nothing).
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np

from .harness import device_name, save_report


def _median_us(fn, reps: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        fn()
    return (time.perf_counter_ns() - t0) / reps / 1e3


def measure(reps: int, batches: int) -> dict:
    from numba import cuda

    import safekern
    from safekern import sync_points
    from safekern.backends.numba import sync as numba_sync

    @safekern.jit
    def touch(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = a[i]

    d = cuda.to_device(np.zeros(256, dtype=np.float32))     # 1 KiB back to the host
    host = np.empty(256, dtype=np.float32)
    calls = {"copy_to_host(out)": lambda: d.copy_to_host(host),
             "cuda.synchronize()": lambda: cuda.synchronize()}
    touch[1, 256](d)
    safekern.sync()

    def launch_then(call):
        def run():
            touch[1, 256](d)
            call()
        return run

    def launch_only():
        touch[1, 256](d)
        safekern.sync()

    samples = {name: {"plain": [], "hooked, nothing pending": [],
                      "hooked, after a checked launch": []} for name in calls}
    launch_cost = []
    for batch in range(batches):
        order = ["plain", "hooked"] if batch % 2 == 0 else ["hooked", "plain"]
        for state in order:
            if state == "plain":
                sync_points.uninstall("numba")
            else:
                numba_sync.install()
            for name, call in calls.items():
                for _ in range(20):
                    call()                                   # warm
                key = "plain" if state == "plain" else "hooked, nothing pending"
                samples[name][key].append(_median_us(call, reps))
        numba_sync.install()
        n = max(50, reps // 10)
        launch_cost.append(_median_us(launch_only, n))
        for name, call in calls.items():
            samples[name]["hooked, after a checked launch"].append(
                _median_us(launch_then(call), n))
    safekern.sync()
    launch_us = statistics.median(launch_cost)
    result = {"reps": reps, "batches": batches,
              "checked launch + safekern.sync() (us)": round(launch_us, 3), "calls": {}}
    for name, per_mode in samples.items():
        entry = {mode: round(statistics.median(v), 3) for mode, v in per_mode.items()}
        entry["hooked, after a checked launch"] = round(
            entry["hooked, after a checked launch"] - launch_us, 3)
        entry["nothing pending - plain (us)"] = round(
            entry["hooked, nothing pending"] - entry["plain"], 3)
        entry["spread of plain over batches (us)"] = round(
            max(per_mode["plain"]) - min(per_mode["plain"]), 3)
        result["calls"][name] = entry
    return result


def _markdown(result: dict, meta: dict) -> str:
    lines = [f"# Sync points: host time per call ({meta['device']})", "",
             f"`{meta['command']}`, {meta['date']}; median of {result['batches']} batches of "
             f"{result['reps']} calls, plain and hooked interleaved.", "",
             "| call | plain numba (us) | hooked, nothing pending (us) | difference (us) | "
             "spread of plain (us) | hooked, after a checked launch (us, launch subtracted) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, e in result["calls"].items():
        lines.append(f"| `{name}` | {e['plain']} | {e['hooked, nothing pending']} | "
                     f"{e['nothing pending - plain (us)']} | "
                     f"{e['spread of plain over batches (us)']} | "
                     f"{e['hooked, after a checked launch']} |")
    lines += ["", "A checked launch followed by `safekern.sync()` takes "
              f"{result['checked launch + safekern.sync() (us)']} us here (subtracted from the "
              "last column, which is therefore the cost of the check a sync point makes after "
              "a checked launch, minus the synchronisation safekern.sync() already did)."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--out", default=None, help="directory for the .json and .md results")
    args = parser.parse_args(argv)
    result = measure(args.reps, args.batches)
    meta = {"device": device_name(), "date": time.strftime("%Y-%m-%d"),
            "python": platform.python_version(),
            "command": "python -m benchmarks.sync_points " + " ".join(argv or sys.argv[1:])}
    save_report(args.out, "sync_points", meta, result, _markdown(result, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
