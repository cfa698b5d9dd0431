"""Run one benchmark case in every mode, interleaved, and verify every mode against NumPy.

For each case: build the data once and upload it; per mode, build the kernels the way the mode
builds them (numba: the mode's decorator; CuPy and OpenCL: the plain library or safekern's,
`languages.py`), run one step (this compiles) and compare the step's outputs with the NumPy
reference; pick the number of steps per repetition from the unchecked step time; then run
warm-up and timed repetitions, rotating the order of the modes in every repetition. A repetition
is a loop of launches with one synchronisation at the end, as in an application; it is timed
with CUDA events (on the simulator, which has no timing, with the host clock; OpenCL: from the
first launch's start to the last one's end, by the device's profiling events).
"""
from __future__ import annotations

import gc
import math
import statistics
import sys
import time
import traceback
import warnings
from dataclasses import dataclass

from . import cases, languages, modes, results_json


@dataclass
class Settings:
    quick: bool = False
    reps: int = 15                # timed repetitions per mode (median over these)
    warmup: int = 3               # untimed repetitions per mode before them
    target_ms: float = 20.0       # aimed-at length of one repetition
    max_steps: int = 500          # cap on steps per repetition
    steps: int | None = None      # fixed steps per repetition (overrides target_ms)
    seed: int = 1234


def simulator() -> bool:
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def _quiet_numba():
    # numba-cuda warns with its own class (numba.cuda.core.errors), numba with numba.core's.
    for module in ("numba.core.errors", "numba.cuda.core.errors"):
        try:
            category = __import__(module, fromlist=["NumbaPerformanceWarning"])
            warnings.simplefilter("ignore", category.NumbaPerformanceWarning)
        except (ImportError, AttributeError):
            pass


def run_step(kernels: dict, plan: list) -> None:
    for name, grid, block, args in plan:
        kernels[name][grid, block](*args)


class Timer:
    """Time a loop of steps ending in one application sync: CUDA events, or the host clock."""

    def __init__(self):
        from numba import cuda

        self.events = not simulator()
        if self.events:
            self.start, self.end = cuda.event(), cuda.event()

    def __call__(self, mode, kernels, plan, steps) -> tuple[float, float]:
        """(device ms, host wall ms) of `steps` steps in `mode`."""
        t0 = time.perf_counter()
        if self.events:
            self.start.record()
        for _ in range(steps):
            run_step(kernels, plan)
        modes.app_sync(mode)
        if self.events:
            self.end.record()
            self.end.synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        device = self.start.elapsed_time(self.end) if self.events else wall
        return device, wall


def stats(values: list) -> dict:
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return {}
    q = statistics.quantiles(ordered, n=4) if n >= 2 else [ordered[0]] * 3
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1],
            "q1": q[0], "q3": q[2], "n": n}


def _error_text(err: BaseException) -> str:
    text = f"{type(err).__name__}: {err}"
    notes = getattr(err, "__notes__", None)
    if notes:
        text += "\n" + "\n".join(notes)
    return text


class NumbaLanguage(languages.Language):
    """numba-cuda kernels: decorated per mode (`modes.decorate`), numba device arrays."""

    name = "numba"

    def unavailable(self):
        if simulator():
            return None
        try:
            from numba import cuda

            if cuda.is_available():
                return None
            why = "numba.cuda.is_available() is False"
        except Exception as err:     # noqa: BLE001 - no driver, a broken install
            why = f"{type(err).__name__}: {err}"
        return f"no CUDA GPU for numba ({why}); NUMBA_ENABLE_CUDASIM=1 runs the simulator"

    def describe(self):
        return {"device": device_name()}

    def upload(self, case):
        from numba import cuda

        return {k: cuda.to_device(v) for k, v in case.arrays.items()}

    def reset(self, case, dev):
        for name in case.reset_names():
            dev[name].copy_to_device(case.arrays[name])

    def fetch(self, case, dev):
        return {name: dev[name].copy_to_host() for name in case.outputs}

    def compile(self, mode, case):
        return languages.Kernels((name, modes.decorate(mode, fn))
                                 for name, fn in case.kernels.items())

    def launch(self, kernels, plan):
        run_step(kernels, plan)

    def app_sync(self, mode):
        modes.app_sync(mode)

    def timer(self):
        return Timer()

    def release(self):
        _free_deferred()


NUMBA = NumbaLanguage()


def host_case(name: str, settings: Settings):
    """(case, NumPy reference): the host data the languages of a case share."""
    case = cases.build(name, settings.quick, settings.seed)
    return case, case.reference()


def _prepare_mode(lang, mode, case, dev, plan, expected, record):
    """Build, compile and verify `case` in `mode`; its kernels, or None (record says why)."""
    with modes.active(mode):
        t0 = time.perf_counter()
        kernels = lang.compile(mode, case)
        record["decorate_s"] = time.perf_counter() - t0
        lang.reset(case, dev)
        lang.launch(kernels, plan)         # compiles each kernel at its first launch
        pending = modes.pending_count()
        plain = modes.plain_pending()
        lang.app_sync(mode)
        record["first_step_s"] = time.perf_counter() - t0
    problem = case.compare(lang.fetch(case, dev), expected)
    if problem:
        record.update(status="wrong", error=problem)
        return None
    record["verified"] = True
    # Is the mode really in effect? Deferred leaves the launch pending (or, where it ran the
    # user's own kernel, a plain launch to wait for), sync-every-launch not.
    deferred = pending is not None and (pending > 0 or (plain and mode is modes.CHECKED))
    if pending is not None and mode.checked and deferred != (mode is modes.CHECKED):
        record["warning"] = (f"after a step {pending} failure source(s) were pending: "
                             f"{mode.name} mode may not be in effect")
    if mode.checked:
        record["checks"] = lang.check_summary(kernels) or None
    return kernels


def _calibrate(mode, kernels, plan, settings, timer) -> int:
    if settings.steps:
        return settings.steps
    if settings.quick or simulator():
        return 1
    with modes.active(mode):
        device_ms, _ = timer(mode, kernels, plan, 3)
    per_step = max(device_ms / 3, 1e-3)
    return max(3, min(settings.max_steps, math.ceil(settings.target_ms / per_step)))


def run_case(name: str, mode_list: list, settings: Settings, log=None,
             language: languages.Language | None = None, host=None) -> dict:
    """Every mode of one case in one language (default numba): verification, timings per
    step (ms), ratios to unchecked. `host`: the case's `host_case`, when already built."""
    lang = language or NUMBA
    _quiet_numba()
    log = log or (lambda msg: None)
    t0 = time.perf_counter()
    case, expected = host or host_case(name, settings)
    host = None
    case = lang.adapt(case)
    cid = languages.case_id(lang.name, name)
    result = {"name": cid, "case": name, "language": lang.name, "summary": case.summary,
              "size": case.size, "notes": case.notes, "kernels": list(case.kernels),
              "launches_per_step": len(case.plan(case.arrays)),
              "traffic_bytes": case.traffic_bytes, "setup_s": None, "modes": {}}
    dev = lang.upload(case)
    plan = case.plan(lang.plan_args(dev))
    result["setup_s"] = time.perf_counter() - t0

    built = {}
    for mode in mode_list:
        record = result["modes"][mode.name] = {"status": "ok", "label": mode.label}
        try:
            kernels = _prepare_mode(lang, mode, case, dev, plan, expected, record)
        except modes.ModeUnavailable as err:
            record.update(status="unavailable", error=str(err))
            continue
        except Exception as err:
            record.update(status="error", error=_error_text(err),
                          traceback=traceback.format_exc(limit=-6))
            continue
        if kernels is not None:
            built[mode.name] = (mode, kernels)
    for mode_name, record in result["modes"].items():
        if record["status"] != "ok":
            log(f"  {cid}: {mode_name}: {record['status']}: {record['error'].splitlines()[0]}")

    if built:
        timer = lang.timer()
        first = built.get("unchecked", next(iter(built.values())))
        steps = _calibrate(*first, plan, settings, timer)
        result["steps_per_rep"] = steps
        samples = {m: [] for m in built}
        walls = {m: [] for m in built}
        order = list(built)
        for rep in range(settings.warmup + settings.reps):
            shift = rep % len(order)
            for mode_name in order[shift:] + order[:shift]:
                if mode_name not in samples:
                    continue
                mode, kernels = built[mode_name]
                try:
                    with modes.active(mode):
                        device_ms, wall_ms = timer(mode, kernels, plan, steps)
                except Exception as err:
                    result["modes"][mode_name].update(status="error", error=_error_text(err))
                    log(f"  {cid}: {mode_name}: error while timing: {_error_text(err)}")
                    del samples[mode_name], walls[mode_name]
                    continue
                if rep >= settings.warmup:
                    samples[mode_name].append(device_ms / steps)
                    walls[mode_name].append(wall_ms / steps)
        for mode_name in samples:
            record = result["modes"][mode_name]
            record["ms_per_step"] = stats(samples[mode_name])
            record["wall_ms_per_step"] = stats(walls[mode_name])
            record["samples_ms_per_step"] = samples[mode_name]
    _ratios(result)
    if case.traffic_bytes and "ms_per_step" in result["modes"].get("unchecked", {}):
        ms = result["modes"]["unchecked"]["ms_per_step"]["median"]
        result["unchecked_gb_per_s"] = case.traffic_bytes / (ms * 1e-3) / 1e9
    del dev, plan, built, case, expected
    gc.collect()
    lang.release()
    result["total_s"] = time.perf_counter() - t0
    return result


def _ratios(result: dict) -> None:
    base = result["modes"].get("unchecked", {}).get("ms_per_step")
    ratios = {}
    if base:
        base_samples = result["modes"]["unchecked"]["samples_ms_per_step"]
        for mode_name, record in result["modes"].items():
            if mode_name == "unchecked" or "ms_per_step" not in record:
                continue
            ratios[mode_name] = record["ms_per_step"]["median"] / base["median"]
            paired = [m / b for m, b in zip(record["samples_ms_per_step"], base_samples)]
            record["paired_ratio"] = stats(paired)
    result["ratios"] = ratios


def _free_deferred():
    if simulator():
        return
    try:
        from numba import cuda

        cuda.current_context().deallocations.clear()
    except Exception:
        pass


def describe(result: dict) -> str:
    """One progress line for a case."""
    parts = []
    for mode_name, record in result["modes"].items():
        if "ms_per_step" in record:
            text = f"{mode_name} {record['ms_per_step']['median']:.4g} ms"
            if mode_name in result.get("ratios", {}):
                text += f" ({result['ratios'][mode_name]:.3f}x)"
        else:
            text = f"{mode_name} {record['status'].upper()}"
        parts.append(text)
    return f"{result['name']}: " + ", ".join(parts)


def run_cases(names, mode_list, settings, log=None) -> list:
    """The numba cases `names`."""
    return run_selection([("numba", n) for n in names], mode_list, settings, log)[0]


def run_selection(selection, mode_list, settings, log=None):
    """Every (language, case) of `selection` (see `languages.select`): (results in report
    order, {language: {"status": "ok", "device": ...} or {"status": "skipped", "reason"}}).

    A language that cannot run here is skipped, not failed. The cases run grouped by case, so
    that its languages share one build of the host data and of the NumPy reference.
    """
    status = {}
    for lang_name in dict.fromkeys(lang for lang, _ in selection):
        lang = languages.get(lang_name)
        why = lang.unavailable()
        status[lang_name] = ({"status": "skipped", "reason": why} if why else
                             {"status": "ok", "label": lang.label, **lang.describe()})
        if log:
            log(f"{lang_name}: " + (f"skipped: {why}" if why else
                                    f"on {status[lang_name].get('device', '?')}"))
    results, host = [], None
    for lang_name, name in languages.run_order(selection):
        if status[lang_name]["status"] != "ok":
            continue
        if host is None or host[0].name != name:
            host = None                          # one case's host data at a time
            host = host_case(name, settings)
        result = run_case(name, mode_list, settings, log, languages.get(lang_name), host)
        results.append(result)
        if log:
            log(describe(result))
    return languages.report_order(results), status


def stderr_log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


__all__ = ["Settings", "NumbaLanguage", "run_case", "run_cases", "run_selection", "run_step",
           "Timer", "stats", "simulator", "describe", "stderr_log"]


def device_name() -> str:
    """The device a benchmark ran on, for its report ("CUDA simulator" under the simulator)."""
    if simulator():
        return "CUDA simulator"
    from numba import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def save_report(out: str | None, stem: str, meta: dict, result: dict, text: str) -> None:
    """Print a small benchmark's Markdown report and, with `out`, write it and its JSON as
    <out>/<stem>-<date>.md / .json."""
    import os

    print(text)
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{stem}-{meta['date']}")
    with open(path + ".json", "w") as f:
        f.write(results_json.text({"meta": meta, "result": result}))
    with open(path + ".md", "w") as f:
        f.write(text)
