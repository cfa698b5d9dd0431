"""Host time the launch-time race check adds to a launch (issue budget: 1 us).

    python -m benchmarks.race_overhead [--launches 2000] [--batches 15] [--out DIR]

For kernels that write an array parameter, each launch looks its arguments' memory up and the
verdict of that launch layout up. Measured: host microseconds per `k[grid, block](...)` launch of
checked kernels with the race check in and out (the checker taken off the kernel), modes
interleaved batch by batch, no synchronisation inside a batch; and `RaceChecker.check()` alone.
Runs on the simulator too (a smoke run; its launch figures mean nothing).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from .harness import device_name, save_report, simulator


def _kernels():
    from numba import cuda

    import safekern

    @safekern.jit
    def add(out, a, b):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + b[i]

    @safekern.jit
    def scale_in_place(a, k):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = a[i] * k

    return {"add(out, a, b)": add, "scale_in_place(a, k)": scale_in_place}


def measure(launches: int, batches: int) -> dict:
    from numba import cuda

    # The simulator runs a Python thread per GPU thread: a smoke run there uses one block.
    n = 256 if simulator() else 1 << 16
    out, a, b = (cuda.to_device(np.ones(n, dtype=np.float32)) for _ in range(3))
    argsets = {"add(out, a, b)": (out, a, b), "scale_in_place(a, k)": (a, np.float32(1.0))}
    result = {"launches": launches, "batches": batches, "kernels": {}}
    for name, kernel in _kernels().items():
        args = argsets[name]
        checker = kernel.dispatch.races
        samples = {"race check in": [], "race check out": []}
        for _ in range(50):
            kernel[n // 256, 256](*args)
        cuda.synchronize()
        for batch in range(batches):
            order = ["race check in", "race check out"]
            if batch % 2:
                order.reverse()
            for mode in order:
                kernel.dispatch.races = checker if mode == "race check in" else None
                cuda.synchronize()
                t0 = time.perf_counter_ns()
                for _ in range(launches):
                    kernel[n // 256, 256](*args)
                t1 = time.perf_counter_ns()
                cuda.synchronize()
                samples[mode].append((t1 - t0) / launches / 1e3)
        kernel.dispatch.races = checker
        reps = launches * 5
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            checker.check(args, n // 256, 256)
        check_us = (time.perf_counter_ns() - t0) / reps / 1e3
        entry = {mode: round(statistics.median(v), 3) for mode, v in samples.items()}
        entry["difference (us)"] = round(entry["race check in"] - entry["race check out"], 3)
        entry["RaceChecker.check alone (us)"] = round(check_us, 3)
        entry["spread, check out (us)"] = round(max(samples["race check out"]) -
                                                min(samples["race check out"]), 3)
        result["kernels"][name] = entry
    return result


def _markdown(result, meta) -> str:
    lines = [f"# Race check: host time per launch ({meta['device']})", "",
             f"`{meta['command']}`, {meta['date']}; median of {result['batches']} batches of "
             f"{result['launches']} launches, check in and out interleaved.", "",
             "| kernel | launch, check in (us) | launch, check out (us) | difference (us) | "
             "check alone (us) | spread (us) |", "| --- | --- | --- | --- | --- | --- |"]
    for name, e in result["kernels"].items():
        lines.append(f"| `{name}` | {e['race check in']} | {e['race check out']} | "
                     f"{e['difference (us)']} | {e['RaceChecker.check alone (us)']} | "
                     f"{e['spread, check out (us)']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    result = measure(args.launches, args.batches)
    meta = {"device": device_name(), "date": time.strftime("%Y-%m-%d"),
            "command": "python -m benchmarks.race_overhead " + " ".join(argv or sys.argv[1:])}
    save_report(args.out, "race_overhead", meta, result, _markdown(result, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
