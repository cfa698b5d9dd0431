"""Host time per launch (empty kernels) and compile time with and without the rewrite."""
from __future__ import annotations

import gc
import statistics
import time
import types

import numpy as np

from . import cases, kernels, modes
from .collector import CollectorTime, settle
from .harness import run_step, stats


def _rotate(items, shift):
    if not items:
        return []
    shift %= len(items)
    return items[shift:] + items[:shift]


def host_launch(mode_list, launches=2000, batches=15, warmup=200, log=None) -> dict:
    """Host microseconds per `k[1, 32](...)` launch, median over batches of back-to-back launches.

    No synchronisation inside a batch, as in an application's launch loop; the device queue
    never fills because an empty kernel runs faster than a launch is dispatched. Sync-every-launch
    waits for the device at every launch, so its figure is a round trip, not dispatch cost.
    """
    from numba import cuda

    arr = cuda.device_array(32, np.float32)
    result = {"launches_per_batch": launches, "batches": batches, "kernels": {}}
    for kname, args in (("empty", ()), ("empty_array", (arr,))):
        fn = getattr(kernels, kname)
        built, entry = {}, {}
        for mode in mode_list:
            try:
                with modes.active(mode):
                    k = modes.decorate(mode, fn)
                    for _ in range(warmup):
                        k[1, 32](*args)
                    modes.app_sync(mode)
                built[mode.name] = (mode, k)
            except Exception as err:
                entry[mode.name] = {"error": f"{type(err).__name__}: {err}"}
        per = {name: [] for name in built}
        for batch in range(batches):
            for name in _rotate(list(built), batch):
                mode, k = built[name]
                n = launches if mode is not modes.SYNC else max(20, launches // 10)
                with modes.active(mode):
                    modes.app_sync(mode)
                    t0 = time.perf_counter_ns()
                    for _ in range(n):
                        k[1, 32](*args)
                    t1 = time.perf_counter_ns()
                    modes.app_sync(mode)
                per[name].append((t1 - t0) / n / 1e3)
        for name, values in per.items():
            entry[name] = {"us_per_launch": stats(values)}
        if "unchecked" in per and "checked" in per:
            entry["checked_minus_unchecked_us"] = (statistics.median(per["checked"])
                                                   - statistics.median(per["unchecked"]))
        result["kernels"][kname] = entry
        if log:
            log(f"host launch {kname}: " + ", ".join(
                f"{n} {statistics.median(v):.2f} us" for n, v in per.items()))
    overheads = [e["checked_minus_unchecked_us"] for e in result["kernels"].values()
                 if "checked_minus_unchecked_us" in e]
    result["overhead_us"] = max(overheads) if overheads else None
    return result


def _fresh(fn):
    """A new function object with the same code: no in-process memo keyed on it can hit."""
    if not isinstance(fn, types.FunctionType):
        return fn          # a real-world kernel: each build imports its module anew
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__ = fn.__qualname__
    copy.__doc__ = fn.__doc__
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def _compile_once(mode, case, plan) -> tuple:
    """(seconds to decorate, compile and first-launch one step, minus a second step's time;
    the CollectorTime of the first step). Collected before, what is left frozen: no sample
    pays for the samples before it, and each collection here scans one sample's survivors
    only, not the whole process (collector.py; compile_times unfreezes them at its end)."""
    settle()
    with modes.active(mode, SAFEKERN_CACHE="off"):
        with CollectorTime() as collector:
            t0 = time.perf_counter()
            built = {name: modes.decorate(mode, _fresh(fn)) for name, fn in case.kernels.items()}
            run_step(built, plan)
            modes.app_sync(mode)
            t1 = time.perf_counter()
        run_step(built, plan)
        modes.app_sync(mode)
        t2 = time.perf_counter()
    return max(0.0, (t1 - t0) - (t2 - t1)), collector


def compile_times(names, reps=3, seed=1234, log=None) -> dict:
    """Compile time of each case's kernels, plain numba vs checked, fresh dispatchers each time.

    In this process, with SAFEKERN_CACHE=off so no cached binary hides the work; a first
    compile of an unrelated kernel in each variant pays the one-off costs (NVVM and libdevice
    loading, safekern's imports) before anything is measured. The quick-size data are used:
    the types, hence the compiled code, are those of the full size. Each sample starts
    collected and records the cyclic collector's time within it (collector.py).
    """
    from numba import cuda

    variants = [modes.UNCHECKED, modes.CHECKED]
    arr = cuda.device_array(1, np.float32)
    warm_errors = {}
    for mode in variants:
        try:
            with modes.active(mode, SAFEKERN_CACHE="off"):
                modes.decorate(mode, _fresh(kernels.empty_array))[1, 1](arr)
                modes.app_sync(mode)
        except Exception as err:
            warm_errors[mode.name] = f"{type(err).__name__}: {err}"
    variants = [m for m in variants if m.name not in warm_errors]
    result = {"reps": reps, "cases": {}, "errors": warm_errors}
    for name in names:
        case = cases.build(name, True, seed)
        dev = {k: cuda.to_device(v) for k, v in case.arrays.items()}
        plan = case.plan(dev)
        samples = {m.name: [] for m in variants}
        collected = {m.name: [] for m in variants}
        entry = {}
        for rep in range(reps):
            for mode in _rotate(variants, rep):
                if mode.name not in samples:
                    continue
                try:
                    seconds, collector = _compile_once(mode, case, plan)
                except Exception as err:
                    entry[f"{mode.name}_error"] = f"{type(err).__name__}: {err}"
                    del samples[mode.name]
                    continue
                samples[mode.name].append(seconds)
                collected[mode.name].append(collector)
        for mode_name, values in samples.items():
            entry[f"{mode_name}_s"] = stats(values)
            runs = collected[mode_name]
            entry[f"{mode_name}_collector"] = {
                "seconds": stats([c.total for c in runs]),
                "full_collections": sum(c.counts[2] for c in runs),
                "collections": sum(sum(c.counts) for c in runs)}
        if samples.get("unchecked") and samples.get("checked"):
            entry["ratio"] = (statistics.median(samples["checked"])
                              / max(statistics.median(samples["unchecked"]), 1e-9))
        result["cases"][name] = entry
        if log and "ratio" in entry:
            log(f"compile {name}: unchecked {entry['unchecked_s']['median']:.3f} s, "
                f"checked {entry['checked_s']['median']:.3f} s ({entry['ratio']:.3f}x)")
    gc.unfreeze()
    totals = {m.name: sum(e[f"{m.name}_s"]["median"] for e in result["cases"].values()
                          if f"{m.name}_s" in e and "ratio" in e) for m in variants}
    result["collector"] = {}
    for m in variants:
        per_case = [e[f"{m.name}_collector"] for e in result["cases"].values()
                    if f"{m.name}_collector" in e]
        result["collector"][m.name] = {
            "median_seconds": sum(c["seconds"]["median"] for c in per_case),
            "full_collections": sum(c["full_collections"] for c in per_case)}
    if totals.get("unchecked"):
        result["total_unchecked_s"] = totals["unchecked"]
        result["total_checked_s"] = totals.get("checked")
        if totals.get("checked") is not None:
            result["ratio_of_totals"] = totals["checked"] / totals["unchecked"]
    return result


__all__ = ["host_launch", "compile_times"]
