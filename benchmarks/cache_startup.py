"""Start-up time of a module of 10 checked kernels: cold, warm, and numba-cuda's own cache=True.

    python -m benchmarks.cache_startup --out DIR          # writes DIR/cache_startup-<date>-<gpu>.*
    python -m benchmarks.cache_startup --reps 3 --no-overhead
    python -m benchmarks.cache_startup --quick --simulator --variants cold,warm   # a smoke run

Each run is a fresh Python process that imports numpy, numba.cuda and safekern, decorates the ten
kernels of benchmarks/startup_kernels.py, copies their inputs to the device, launches each once
and copies every result back ("first result"). The time is taken from just before the process is
started to the moment the last result is on the host, and split into phases the process reports
itself (interpreter start-up, imports, CUDA context, decoration, inputs, launches to results):

- cold: checked kernels, an empty kernel cache file (a new file every repetition);
- warm: checked kernels, the same cache file again (filled by one untimed run);
- numba cached: the same kernels unchecked (SAFEKERN_CHECKS=0) with numba-cuda's cache=True,
  its cache filled by one untimed run (the second run is what is reported);
- numba uncached: unchecked, no cache, for reference;
- import only: the imports and the CUDA context, nothing else.

Goals (issue 3): warm at most a quarter of numba cached, and at least 10x faster than cold. The
imports and the context are the same in every variant and no cache can remove them, so the report
gives both the whole time and the time after them ("kernel time"), and says which goal holds on
which. Then (unless --no-overhead) benchmarks.overhead's host time per launch, checked against
plain numba, on the launch path the cached kernels use.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import results_json

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent

SIZE = (1 << 16, 128, 64)          # vector length, matrix side, blocks of the grid-stride kernels
QUICK_SIZE = (256, 16, 1)
VARIANTS = ("cold", "warm", "numba_cached", "numba_uncached", "import_only")
LABELS = {
    "cold": "checked, empty cache (cold)",
    "warm": "checked, cache filled (warm)",
    "numba_cached": "unchecked, numba cache=True (second run)",
    "numba_uncached": "unchecked, no cache",
    "import_only": "imports + CUDA context only",
}


# -- the child process -----------------------------------------------------------------------

def child(variant: str, n: int, m: int, blocks: int) -> dict:
    """Runs in the measured process; returns phase timestamps (time.time(), seconds)."""
    marks = {"start": time.time()}
    import numpy as np
    marks["numpy"] = time.time()
    from numba import cuda
    marks["numba_cuda"] = time.time()
    import safekern
    marks["safekern"] = time.time()
    from benchmarks import startup_kernels as SK
    cuda.current_context()
    cuda.device_array(1, np.float32)           # the context is created and usable
    marks["context"] = time.time()
    if variant == "import_only":
        return {"marks": marks, "ok": True}
    kw = {"cache": True} if variant == "numba_cached" else {}
    kernels = {name: safekern.jit(**kw)(getattr(SK, name)) for name in SK.NAMES}
    marks["decorate"] = time.time()
    cases = SK.cases(n, m, blocks)
    dev = {name: {k: cuda.to_device(v) for k, v in inputs.items()}
           for name, (inputs, _, _, _) in cases.items()}
    cuda.synchronize()
    marks["inputs"] = time.time()
    results = {}
    for name in SK.NAMES:
        _, launch, out, _ = cases[name]
        grid, block, args = launch(dev[name])
        kernels[name][grid, block](*args)
    safekern.sync()
    for name in SK.NAMES:
        results[name] = dev[name][cases[name][2]].copy_to_host()
    marks["first_result"] = time.time()
    ok = {name: SK.check(name, results[name], cases[name][3]) for name in SK.NAMES}
    info = {"marks": marks, "ok": all(ok.values()), "bad": [n for n, v in ok.items() if not v]}
    if variant in ("cold", "warm") and "safekern.backends.numba.binary" in sys.modules:
        from safekern.backends.numba import binary as numba_binary    # (not under the simulator)

        info["stats"] = dict(numba_binary.STATS)
    if variant in ("cold", "warm"):
        info["built"] = sum(k.build.numba is not None for k in kernels.values())
    return info


# -- the parent ------------------------------------------------------------------------------

def _env(mode: str, cache: Path, numba_cache: Path, simulator: bool) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["NUMBA_CACHE_DIR"] = str(numba_cache)       # the same in every variant (a key field)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    if mode in ("cold", "warm", "import_only"):
        env["SAFEKERN_CACHE"] = str(cache)
        env.pop("SAFEKERN_CHECKS", None)
    else:
        env["SAFEKERN_CHECKS"] = "0"
        env["SAFEKERN_CACHE"] = "off"
    return env


def run_once(mode: str, cache: Path, numba_cache: Path, size: tuple, simulator: bool) -> dict:
    env = _env(mode, cache, numba_cache, simulator)
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "benchmarks.cache_startup", "--child", mode,
                           "--size", ",".join(map(str, size))],
                          cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=600)
    t_exit = time.time()
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} run failed:\n{proc.stderr[-3000:]}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    m = info["marks"]
    end = m.get("first_result", m["context"])
    info["phases"] = {
        "interpreter": m["start"] - t0,
        "import_numpy": m["numpy"] - m["start"],
        "import_numba_cuda": m["numba_cuda"] - m["numpy"],
        "import_safekern": m["safekern"] - m["numba_cuda"],
        "context": m["context"] - m["safekern"],
    }
    if "first_result" in m:
        info["phases"].update(decorate=m["decorate"] - m["context"],
                              inputs=m["inputs"] - m["decorate"],
                              launch_to_results=m["first_result"] - m["inputs"])
    info["total"] = end - t0
    info["startup"] = m["context"] - t0                       # what no cache can remove
    info["kernel_time"] = end - m["context"] - (m["inputs"] - m["decorate"]
                                                if "inputs" in m else 0.0)
    info["process_wall"] = t_exit - t0
    return info


def measure(reps: int, variants=VARIANTS, size=SIZE, simulator=False, log=print) -> dict:
    work = Path(tempfile.mkdtemp(prefix="safekern-startup-"))
    numba_cache = work / "numba-cache"
    runs = {v: [] for v in variants}
    warm_cache = work / "warm.cache"
    if "warm" in variants:                                    # fills the warm cache (untimed)
        run_once("warm", warm_cache, numba_cache, size, simulator)
    if "numba_cached" in variants:                            # fills numba's cache (untimed)
        run_once("numba_cached", work / "unused.cache", numba_cache, size, simulator)
    for rep in range(reps):
        # Interleaved, so drifts (clocks, file caches) hit every variant alike.
        order = variants[rep % len(variants):] + variants[:rep % len(variants)]
        for variant in order:
            cache = warm_cache if variant == "warm" else work / f"cold-{rep}.cache"
            info = run_once(variant, cache, numba_cache, size, simulator)
            runs[variant].append(info)
            log(f"rep {rep} {variant:15s} total {info['total']:.3f} s, kernels "
                f"{info['kernel_time']:.3f} s" + ("" if info.get("ok", True) else " WRONG RESULT"))
    summary = {}
    for variant, infos in runs.items():
        med = {k: statistics.median(i[k] for i in infos) for k in ("total", "startup",
                                                                    "kernel_time")}
        phases = {p: statistics.median(i["phases"][p] for i in infos)
                  for p in infos[0]["phases"]}
        summary[variant] = {**med, "phases": phases, "ok": all(i.get("ok", True) for i in infos),
                            "samples_total": [round(i["total"], 4) for i in infos],
                            "stats": infos[-1].get("stats"), "built": infos[-1].get("built")}
    s = summary
    goals = {}
    if "warm" in s and "numba_cached" in s:
        goals["warm_over_numba_cached_total"] = s["warm"]["total"] / s["numba_cached"]["total"]
        goals["warm_over_numba_cached_kernels"] = (s["warm"]["kernel_time"]
                                                   / s["numba_cached"]["kernel_time"])
    if "warm" in s and "cold" in s:
        goals["cold_over_warm_total"] = s["cold"]["total"] / s["warm"]["total"]
        goals["cold_over_warm_kernels"] = s["cold"]["kernel_time"] / s["warm"]["kernel_time"]
    return {"reps": reps, "variants": list(variants), "size": list(size),
            "simulator": simulator, "summary": summary, "goals": goals, "runs": runs}


def _machine() -> dict:
    info = {"python": platform.python_version(), "platform": platform.platform(),
            "cpu_count": os.cpu_count()}
    try:
        from benchmarks.report import machine_info, versions

        info.update(machine_info())
        info["versions"] = versions()
    except Exception as err:      # noqa: BLE001 - the figures matter more than the labels
        info["machine_error"] = f"{type(err).__name__}: {err}"
    return info


def overhead(log=print) -> dict:
    """benchmarks.overhead.host_launch for plain numba and checked kernels (cache on)."""
    from benchmarks import modes
    from benchmarks import overhead as ov

    saved = os.environ.get("SAFEKERN_CACHE")
    with tempfile.TemporaryDirectory() as d:
        os.environ["SAFEKERN_CACHE"] = os.path.join(d, "overhead.cache")
        try:
            return ov.host_launch([modes.UNCHECKED, modes.CHECKED], log=log)
        finally:
            if saved is None:
                os.environ.pop("SAFEKERN_CACHE", None)
            else:
                os.environ["SAFEKERN_CACHE"] = saved


def _ms(x):
    return f"{x * 1e3:.0f}"


def _yes(ok: bool) -> str:
    return "yes" if ok else "**no**"


def markdown(result: dict, command: str) -> str:
    s, g, m = result["summary"], result["goals"], result["machine"]
    lines = [f"# Start-up time of 10 checked kernels: cold, warm, numba cache=True "
             f"({time.strftime('%Y-%m-%d')})", "",
             f"Command: `{command}`", "",
             f"Machine: {m.get('gpu', '?')} (cc {m.get('compute_capability', '?')}), "
             f"{m.get('cpu', '?')}, {m.get('cpu_count')} CPUs, Python {m.get('python')}; "
             f"versions: {', '.join(f'{k} {v}' for k, v in m.get('versions', {}).items())}", "",
             f"Median of {result['reps']} runs per variant, interleaved; each run a new process. "
             "*total*: from just before the process starts to the last of the ten results on "
             "the host. *kernel time*: total minus interpreter start-up, imports, CUDA context "
             "and copying the inputs (what a cache can change: decoration, compile or load, "
             "launches, results).", "",
             "| variant | total ms | interpreter | numpy | numba.cuda | safekern | context | "
             "decorate | inputs | launch to results | kernel time ms | results |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for v in result["variants"]:
        e = s[v]
        p = e["phases"]
        cols = [_ms(p.get(k, 0.0)) if k in p else "" for k in
                ("interpreter", "import_numpy", "import_numba_cuda", "import_safekern", "context",
                 "decorate", "inputs", "launch_to_results")]
        lines.append(f"| {LABELS[v]} | {_ms(e['total'])} | " + " | ".join(cols) +
                     f" | {_ms(e['kernel_time']) if v != 'import_only' else ''} | "
                     f"{'ok' if e['ok'] else '**wrong**'} |")
    lines += ["", "| goal | target | total | kernel time | met (total / kernel time) |",
              "|---|---|---:|---:|---|"]
    if "warm_over_numba_cached_total" in g:
        a, b = g["warm_over_numba_cached_total"], g["warm_over_numba_cached_kernels"]
        lines.append(f"| warm / numba cached | <= 0.25 | {a:.3f} | {b:.3f} | "
                     f"{_yes(a <= 0.25)} / {_yes(b <= 0.25)} |")
    if "cold_over_warm_total" in g:
        a, b = g["cold_over_warm_total"], g["cold_over_warm_kernels"]
        lines.append(f"| cold / warm | >= 10 | {a:.2f} | {b:.2f} | "
                     f"{_yes(a >= 10)} / {_yes(b >= 10)} |")
    lines.append("")
    for v in ("warm", "cold"):
        if v in s:
            lines.append(f"{LABELS[v]}: numba dispatchers built {s[v].get('built')}, numba "
                         f"cache events {s[v].get('stats')}.")
    ov = result.get("overhead")
    if ov:
        lines += ["", "## Host time per launch (benchmarks.overhead, us)", "",
                  "| kernel | plain numba | checked | checked - plain |", "|---|---:|---:|---:|"]
        for name, e in ov.get("kernels", {}).items():
            u = e.get("unchecked", {}).get("us_per_launch", {}).get("median")
            c = e.get("checked", {}).get("us_per_launch", {}).get("median")
            d = e.get("checked_minus_unchecked_us")
            lines.append(f"| {name} | {u if u is None else f'{u:.2f}'} | "
                         f"{c if c is None else f'{c:.2f}'} | "
                         f"{d if d is None else f'{d:+.2f}'} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cache_startup", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(RESULTS), help="directory for the report files")
    p.add_argument("--reps", type=int, default=5, help="runs per variant (default 5)")
    p.add_argument("--no-overhead", action="store_true", help="skip the host-launch figures")
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help=f"comma-separated subset of {','.join(VARIANTS)}")
    p.add_argument("--quick", action="store_true",
                   help="tiny inputs and one repetition: a smoke run, not a measurement")
    p.add_argument("--simulator", action="store_true",
                   help="run the processes on numba's CUDA simulator (smoke runs without a GPU)")
    p.add_argument("--size", help=argparse.SUPPRESS)
    p.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    size = tuple(int(x) for x in args.size.split(",")) if args.size else \
        (QUICK_SIZE if args.quick else SIZE)
    if args.child:
        print(json.dumps(child(args.child, *size), default=str))
        return 0
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variant(s) {unknown}; choose from {', '.join(VARIANTS)}")
    command = "python -m benchmarks.cache_startup " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    result = measure(1 if args.quick else args.reps, variants, size, args.simulator)
    result["machine"] = _machine()
    if not args.no_overhead and not args.simulator:
        try:
            result["overhead"] = overhead()
        except Exception as err:      # noqa: BLE001
            result["overhead"] = {"error": f"{type(err).__name__}: {err}"}
    result["command"] = command
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gpu = str(result["machine"].get("gpu", "gpu")).lower().replace(" ", "-")
    stem = out / f"cache_startup-{time.strftime('%Y-%m-%d')}-{gpu}"
    stem.with_suffix(".json").write_text(results_json.text(result, default=str))
    text = markdown(result, command)
    stem.with_suffix(".md").write_text(text)
    print(text)
    bad = [v for v in variants if not result["summary"][v]["ok"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
