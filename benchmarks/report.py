"""The machine and versions, the summary figures and goals, and the .json / .md report files."""
from __future__ import annotations

import datetime
import math
import os
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path

from . import languages, results_json

GOALS = (   # (key, what, target, lower is better)
    ("checked_geomean", "checked / unchecked, geomean", 1.03),
    ("checked_worst", "checked / unchecked, worst kernel", 1.20),
    ("host_overhead_us", "host time added per launch (us)", 1.0),
    ("compile_ratio", "compile time, checked / plain numba", 1.10),
)
#: the same two ratio goals for each C language subset that ran (issue 13)
LANGUAGE_GOALS = (("checked_geomean", "checked / unchecked, geomean", 1.03),
                  ("checked_worst", "checked / unchecked, worst kernel", 1.20))
RATIO_MODES = (("checked", "checked / unchecked"),
               ("sync", "sync every launch / unchecked"),
               ("sanitizer", "compute-sanitizer memcheck / unchecked"))


def _run(args) -> str | None:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def machine_info() -> dict:
    from numba import config

    info = {"simulator": bool(config.ENABLE_CUDASIM), "python": platform.python_version(),
            "platform": platform.platform(), "cpu_count": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            model = re.search(r"model name\s*:\s*(.*)", f.read())
        info["cpu"] = model.group(1).strip() if model else platform.processor()
    except OSError:
        info["cpu"] = platform.processor()
    if info["simulator"]:
        info["gpu"] = "CUDA simulator"
        return info
    from numba import cuda

    try:
        dev = cuda.get_current_device()
    except Exception as err:     # noqa: BLE001 - no GPU for numba: the C languages may run
        info["gpu"] = "no CUDA device"
        info["cuda_error"] = f"{type(err).__name__}: {err}"
        return info
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    info.update(gpu=name, compute_capability=".".join(map(str, dev.compute_capability)))
    for key, attr in (("sm_count", "MULTIPROCESSOR_COUNT"), ("clock_khz", "CLOCK_RATE"),
                      ("memory_clock_khz", "MEMORY_CLOCK_RATE"), ("l2_bytes", "L2_CACHE_SIZE")):
        try:
            info[key] = int(getattr(dev, attr))
        except Exception:
            pass
    try:
        info["memory_bytes"] = int(cuda.current_context().get_memory_info()[1])
    except Exception:
        pass
    try:
        info["cuda_driver_api"] = ".".join(map(str, cuda.cudadrv.driver.driver.get_version()))
    except Exception:
        pass
    try:
        info["cuda_runtime"] = ".".join(map(str, cuda.runtime.get_version()))
    except Exception:
        pass
    try:
        from numba.cuda.cudadrv import nvvm

        info["nvvm"] = ".".join(map(str, nvvm.NVVM().get_version()))
    except Exception:
        pass
    smi = _run(["nvidia-smi", "--query-gpu=driver_version,name,clocks.max.sm,power.limit",
                "--format=csv,noheader", "-i", os.environ.get("CUDA_VISIBLE_DEVICES",
                                                              "0").split(",")[0]])
    if smi:
        fields = [f.strip() for f in smi.splitlines()[0].split(",")]
        info["driver"] = fields[0]
        info["nvidia_smi"] = ", ".join(fields)
    return info


def versions() -> dict:
    out = {}
    for dist in ("numba", "numba-cuda", "numpy", "llvmlite", "cuda-bindings", "cuda-core",
                 "safekern"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    import safekern

    out["safekern"] = safekern.__version__
    root = Path(safekern.__file__).resolve().parent.parent
    commit = _run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"])
    if commit:
        dirty = _run(["git", "-C", str(root), "status", "--porcelain", "--", "safekern"])
        out["safekern_commit"] = commit + ("+dirty" if dirty else "")
    return out


def environment() -> dict:
    return {k: v for k, v in sorted(os.environ.items())
            if k.startswith(("SAFEKERN_", "NUMBA_", "CUDA_VISIBLE"))}


# Summary ----------------------------------------------------------------------------------

def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _ratio_summary(case_results) -> dict:
    out = {}
    for mode, _ in RATIO_MODES:
        pairs = [(r["name"], r["ratios"][mode]) for r in case_results
                 if mode in r.get("ratios", {})]
        if pairs:
            worst = max(pairs, key=lambda p: p[1])
            out[mode] = {"geomean": geomean([p[1] for p in pairs]), "worst": worst[1],
                         "worst_kernel": worst[0], "best": min(p[1] for p in pairs),
                         "kernels": len(pairs),
                         # issue 26's measure: a kernel that runs faster checked counts as 1
                         "geomean_floor1": geomean([max(1.0, p[1]) for p in pairs])}
    return out


def _real_world(case_result) -> bool:
    return case_result.get("case", case_result["name"]).startswith("rw_")


def summarize(run: dict) -> dict:
    """Geomean and worst ratio per mode, per language subset (`summary["languages"]`; the
    numba figures also at the top level, as before the C languages), the goals, failures."""
    by_language = {}
    for lang in languages.NAMES:
        figures = _ratio_summary([r for r in run["cases"]
                                  if r.get("language", "numba") == lang])
        if figures:
            by_language[lang] = figures
    summary = dict(by_language.get("numba", {}), languages=by_language)
    # numba's two sets: the suite's own kernels and the real-world ones (benchmarks/realworld)
    numba_cases = [r for r in run["cases"] if r.get("language", "numba") == "numba"]
    summary["sets"] = {name: figures for name, figures in (
        ("suite", _ratio_summary([r for r in numba_cases if not _real_world(r)])),
        ("real-world", _ratio_summary([r for r in numba_cases if _real_world(r)]))) if figures}
    measured = {
        "checked_geomean": summary.get("checked", {}).get("geomean"),
        "checked_worst": summary.get("checked", {}).get("worst"),
        "host_overhead_us": (run.get("host_launch") or {}).get("overhead_us"),
        "compile_ratio": _compile_geomean(run.get("compile") or {}),
    }
    # Goals are about a real GPU at full size; a smoke run's figures say nothing about them.
    smoke = (run.get("machine", {}).get("simulator") or run.get("settings", {}).get("quick"))
    goals = [(key, what, target, measured[key], smoke) for key, what, target in GOALS]
    for lang, figures in by_language.items():
        if lang == "numba" or "checked" not in figures:
            continue
        on_cpu = bool((run.get("languages") or {}).get(lang, {}).get("note"))
        for key, what, target in LANGUAGE_GOALS:
            value = figures["checked"]["geomean" if key.endswith("geomean") else "worst"]
            goals.append((f"{lang}_{key}", f"{languages.LABELS[lang]}: {what}", target, value,
                          smoke or on_cpu))
    summary["goals"] = [{"goal": key, "what": what, "target": target, "measured": value,
                         "met": None if value is None or skip else value <= target}
                        for key, what, target, value, skip in goals]
    failures = []
    for r in run["cases"]:
        for mode, rec in r["modes"].items():
            if rec.get("status") != "ok":
                failures.append({"kernel": r["name"], "mode": mode, "status": rec.get("status"),
                                 "error": rec.get("error", "")})
    san = run.get("sanitizer") or {}
    if san.get("status") in ("failed", "timeout"):
        failures.append({"kernel": "*", "mode": "sanitizer", "status": san["status"],
                         "error": san.get("note") or "the memcheck worker failed"})
    summary["failures"] = failures
    return summary


# Files ------------------------------------------------------------------------------------

def stem(run: dict) -> str:
    gpu = re.sub(r"[^a-z0-9]+", "-", run["machine"].get("gpu", "gpu").lower()).strip("-")
    suffix = "-quick" if run["settings"].get("quick") else ""
    return f"{run['date'][:10]}-{gpu or 'gpu'}{suffix}"


def write(run: dict, out_dir) -> list:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    base = out / stem(run)
    paths = [base.with_suffix(".json"), base.with_suffix(".md")]
    png = _png_plot(run, base.with_suffix(".png"))
    if png:
        paths.append(png)
    paths[0].write_text(results_json.text(run, default=str))
    paths[1].write_text(markdown(run, png.name if png else None))
    return paths


def _fmt(value, spec=".3f", none="-"):
    return none if value is None else format(value, spec)


def _ms(rec) -> str:
    stats = rec.get("ms_per_step") if rec else None
    return _fmt(stats["median"], ".4g") if stats else (rec or {}).get("status", "-").upper()


def ascii_plot(run: dict, mode: str, width: int = 48) -> str:
    pairs = [(r["name"], r["ratios"][mode]) for r in run["cases"] if mode in r.get("ratios", {})]
    if not pairs:
        return ""
    values = [p[1] for p in pairs]
    log_scale = max(values) > 3
    lo = min(1.0, min(values)) * (1.0 if log_scale else 0.98)
    hi = max(values + [1.25])
    pos = (lambda v: math.log(v / lo) / math.log(hi / lo)) if log_scale else \
          (lambda v: (v - lo) / (hi - lo))
    marks = {"|": 1.0}
    if mode == "checked":
        marks[":"] = 1.03
    w = max([16] + [len(name) + 1 for name, _ in pairs])
    lines = [f"{'kernel':<{w}}{'ratio':>8}  {lo:.2f}{' (log scale)' if log_scale else ''}"
             f"{'':>{max(1, width - 24)}}{hi:.2f}"]
    for name, value in pairs:
        bar = [" "] * width
        for ch, at in marks.items():
            col = min(width - 1, max(0, round(pos(at) * (width - 1))))
            bar[col] = ch
        for col in range(max(1, round(pos(value) * (width - 1)))):
            bar[col] = "#" if bar[col] == " " else "+"
        lines.append(f"{name:<{w}}{value:>8.3f}  {''.join(bar)}".rstrip())
    legend = "| = 1.00" + (", : = the 1.03 goal" if mode == "checked" else "") + \
             ", + = bar over a mark"
    return "\n".join(lines + [legend])


def _png_plot(run: dict, path: Path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    series = [(m, label) for m, label in RATIO_MODES
              if any(m in r.get("ratios", {}) for r in run["cases"])]
    names = [r["name"] for r in run["cases"]]
    if not series or not names:
        return None
    fig, axes = plt.subplots(1, len(series), figsize=(4.2 * len(series), 0.3 * len(names) + 1.4),
                             sharey=True, squeeze=False)
    for ax, (mode, label) in zip(axes[0], series):
        values = [r.get("ratios", {}).get(mode, float("nan")) for r in run["cases"]]
        # bars grow from 1.0, so 1.01 and 1.03 look different
        ax.barh(range(len(names)), [v - 1 for v in values], left=1.0, color="#4477aa")
        finite = [v for v in values if v == v]
        if finite:
            ax.set_xlim(min(0.97, min(finite) * 0.98), max(1.1, max(finite) * 1.05))
        ax.axvline(1.0, color="black", linewidth=0.8)
        if mode == "checked":
            ax.axvline(1.03, color="#cc3311", linewidth=0.8, linestyle="--")
        elif max((v for v in values if v == v), default=1) > 3:
            ax.set_xscale("log")
        ax.set_title(label, fontsize=9)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.invert_yaxis()
    fig.suptitle(f"safekern, {run['machine'].get('gpu')}, {run['date'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _checks_cell(r) -> str:
    checks = (r["modes"].get("checked") or {}).get("checks")
    if not checks:
        return "-"
    kept = sum(c.get("checked", 0) + c.get("hoisted", 0) for c in checks.values())
    launch = sum(c.get("launch", 0) for c in checks.values())
    gone = sum(c.get("eliminated", 0) for c in checks.values())
    return f"{kept} / {launch} / {gone}"


def markdown(run: dict, png_name: str | None = None) -> str:
    m, s = run["machine"], run["summary"]
    lines = [f"# safekern benchmarks: {m.get('gpu')}, {run['date'][:10]}", ""]
    if m.get("simulator") or run["settings"].get("quick"):
        lines += ["> **Smoke run** (" + ", ".join(
            x for x in ("CUDA simulator" if m.get("simulator") else "",
                        "--quick sizes" if run["settings"].get("quick") else "") if x)
                  + "): the timings are not measurements.", ""]
    lines += [f"Command: `{run['command']}`", "",
              "Machine: " + ", ".join(f"{k} {m[k]}" for k in (
                  "gpu", "compute_capability", "sm_count", "driver", "cuda_driver_api",
                  "cuda_runtime", "nvvm", "cpu") if m.get(k) is not None), "",
              "Versions: " + ", ".join(f"{k} {v}" for k, v in run["versions"].items()), ""]
    lines += ["## Summary", "", "| language | ratio | geomean | worst | kernels |",
              "|---|---|---|---|---|"]
    for lang, figures in s.get("languages", {}).items():
        for mode, label in RATIO_MODES:
            if mode in figures:
                x = figures[mode]
                lines.append(f"| {languages.LABELS[lang]} | {label} | {x['geomean']:.3f} | "
                             f"{x['worst']:.3f} ({x['worst_kernel']}) | {x['kernels']} |")
    if len(s.get("sets", {})) > 1 or "real-world" in s.get("sets", {}):
        lines += ["", "numba-cuda by set (the suite's own kernels; the real-world kernels of "
                  "public projects, `benchmarks/realworld/`), checked / unchecked:", "",
                  "| set | geomean | geomean, ratios < 1 as 1 | worst | kernels |",
                  "|---|---|---|---|---|"]
        for name, figures in s["sets"].items():
            if "checked" in figures:
                x = figures["checked"]
                lines.append(f"| {name} | {x['geomean']:.3f} | {x['geomean_floor1']:.3f} | "
                             f"{x['worst']:.3f} ({x['worst_kernel']}) | {x['kernels']} |")
    lines += _languages_section(run)
    lines += ["", "| goal | target | measured | met |", "|---|---|---|---|"]
    for g in s["goals"]:
        met = {True: "yes", False: "**no**",
               None: "not measured" if g["measured"] is None else "not evaluated"}[g["met"]]
        lines.append(f"| {g['what']} | <= {g['target']} | {_fmt(g['measured'])} | {met} |")
    lines += ["", "## Per kernel", "",
              "Median milliseconds per step (a step is the launches listed in `kernels`; "
              f"{run['settings']['reps']} timed repetitions after {run['settings']['warmup']} "
              "warm-up, modes interleaved). Checks: sites kept / proven at launch / eliminated by "
              "the checked build.",
              "Unchecked is plain numba (SAFEKERN_CHECKS=0), `cupy.RawKernel` and "
              "`pyopencl.Program`; checked is `safekern.jit`, `safekern.cupy.RawKernel` and "
              "`safekern.opencl.Program`."]
    for lang in languages.NAMES:
        rows = [r for r in run["cases"] if r.get("language", "numba") == lang]
        if not rows:
            continue
        lines += ["", f"### {languages.LABELS[lang]}", "",
                  "| kernel | size | steps/rep | unchecked ms | checked ms | ratio | sync ms | "
                  "ratio | memcheck ratio | checks kept / launch / elim. | GB/s unchecked |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            ratios, modes_ = r.get("ratios", {}), r["modes"]
            lines.append(
                f"| {r['name']} | {r['size']} | {r.get('steps_per_rep', '-')} | "
                f"{_ms(modes_.get('unchecked'))} | {_ms(modes_.get('checked'))} | "
                f"{_fmt(ratios.get('checked'))} | {_ms(modes_.get('sync'))} | "
                f"{_fmt(ratios.get('sync'))} | {_fmt(ratios.get('sanitizer'), '.1f')} | "
                f"{_checks_cell(r)} | {_fmt(r.get('unchecked_gb_per_s'), '.0f')} |")
    for mode, label in RATIO_MODES:
        plot = ascii_plot(run, mode)
        if plot:
            lines += ["", f"### {label} per kernel", "", "```text", plot, "```"]
    if png_name:
        lines += ["", f"![ratio per kernel]({png_name})"]
    lines += _checks_section(run) + _host_section(run) + _compile_section(run)
    lines += _sanitizer_section(run) + _failure_section(run)
    if run.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {n}" for n in run["notes"]]
    return "\n".join(lines) + "\n"


def _languages_section(run):
    info = run.get("languages") or {}
    if not info:
        return []
    lines = ["", "| language | ran on |", "|---|---|"]
    for lang, x in info.items():
        where = x.get("device", "-") + (f" ({x['note']})" if x.get("note") else "") \
            if x.get("status") == "ok" else f"skipped: {x.get('reason')}"
        lines.append(f"| {languages.LABELS[lang]} | {where} |")
    return lines


def _checks_section(run):
    lines = []
    for r in run["cases"]:
        prefix = "" if r.get("language", "numba") == "numba" else r["language"] + ":"
        for kname, c in ((r["modes"].get("checked") or {}).get("checks") or {}).items():
            kname = prefix + kname
            if "error" in c:
                lines.append(f"| {kname} | {c['error']} | | |")
                continue
            reasons = "; ".join(f"{k} ({v})" for k, v in c.get("reasons", {}).items()) or "-"
            lines.append(f"| {kname} | {c['checked'] + c['hoisted']} | {c['eliminated']} | "
                         f"{reasons} |")
    if not lines:
        return ["", "## Checks eliminated", "",
                "No kernel reported its checks (`check_report()` unavailable)."]
    return ["", "## Checks eliminated", "", "| kernel | kept | eliminated | why |",
            "|---|---|---|---|"] + lines


def _host_section(run):
    host = run.get("host_launch")
    if not host:
        return []
    lines = ["", "## Host time per launch", "",
             f"Microseconds per `k[1, 32](...)`, median of {host['batches']} batches of "
             f"{host['launches_per_batch']} launches without a sync (sync every launch: a tenth "
             "as many, each waiting for the device).", "",
             "| kernel | unchecked us | checked us | added us | sync every launch us |",
             "|---|---|---|---|---|"]
    for kname, e in host["kernels"].items():
        def us(mode):
            x = e.get(mode, {})
            return _fmt(x["us_per_launch"]["median"], ".2f") if "us_per_launch" in x else \
                x.get("error", "-")
        lines.append(f"| {kname} | {us('unchecked')} | {us('checked')} | "
                     f"{_fmt(e.get('checked_minus_unchecked_us'), '+.2f')} | {us('sync')} |")
    return lines


def _compile_geomean(comp: dict, at_least_one: bool = True) -> float | None:
    """The geomean of the cases' checked / plain ratios, a ratio below 1 counted as 1 (the
    goal's figure: a checked compile is not faster than numba's, a ratio below 1 is a slow
    plain sample) or as measured."""
    ratios = [e["ratio"] for e in (comp.get("cases") or {}).values() if e.get("ratio")]
    return geomean([max(r, 1.0) if at_least_one else r for r in ratios]) if ratios else None


def _compile_section(run):
    comp = run.get("compile")
    if not comp:
        return []
    lines = ["", "## Compile time", "",
             f"Seconds to decorate, compile and first-launch each kernel's step, less a second "
             f"step; median of {comp['reps']} fresh dispatchers, SAFEKERN_CACHE=off.", "",
             "| kernel | plain numba s | checked s | ratio |", "|---|---|---|---|"]
    for name, e in comp["cases"].items():
        def sec(mode):
            x = e.get(f"{mode}_s")
            return _fmt(x["median"]) if x else e.get(f"{mode}_error", "-")
        lines.append(f"| {name} | {sec('unchecked')} | {sec('checked')} | "
                     f"{_fmt(e.get('ratio'))} |")
    if comp.get("ratio_of_totals") is not None:
        lines.append(f"| **all** (ratio of totals) | {comp['total_unchecked_s']:.3f} | "
                     f"{comp['total_checked_s']:.3f} | {comp['ratio_of_totals']:.3f} |")
    if _compile_geomean(comp) is not None:
        lines.append(f"| **geomean of the ratios**, as measured | | | "
                     f"{_compile_geomean(comp, False):.3f} |")
        lines.append(f"| **geomean, ratios below 1 as 1** (the goal's figure) | | | "
                     f"{_compile_geomean(comp):.3f} |")
    collector = comp.get("collector") or {}
    if collector.get("unchecked") and collector.get("checked"):
        u, c = collector["unchecked"], collector["checked"]
        lines += ["", f"Collected before each sample (benchmarks/collector.py). The cyclic "
                      f"collector within the samples (the cases' medians summed): plain "
                      f"{u['median_seconds']:.3f} s, checked {c['median_seconds']:.3f} s; "
                      f"full collections in all samples: {u['full_collections']} plain, "
                      f"{c['full_collections']} checked."]
    for mode, err in comp.get("errors", {}).items():
        lines.append(f"\n{mode}: {err}")
    return lines


def _sanitizer_section(run):
    san = run.get("sanitizer")
    if not san:
        return []
    lines = ["", "## compute-sanitizer memcheck", "", f"Status: {san.get('status')}."]
    for key, label in (("note", "Note"), ("version", "Version"), ("errors", "Errors reported"),
                       ("wall_s", "Worker wall time (s)")):
        if san.get(key) is not None:
            lines.append(f"{label}: {san[key]:.1f}" if key == "wall_s" else
                         f"{label}: {san[key]}")
    if san.get("output_tail"):
        lines += ["", "```text", san["output_tail"][-2000:], "```"]
    return lines


def _failure_section(run):
    failures = run["summary"]["failures"]
    if not failures:
        return ["", "All modes that ran verified against NumPy."]
    lines = ["", "## Failures", ""]
    for f in failures:
        first = (f["error"] or "").strip().splitlines()
        lines.append(f"- {f['kernel']} / {f['mode']}: {f['status']}: "
                     f"{first[0] if first else ''}")
    return lines


def now_iso() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


__all__ = ["machine_info", "versions", "environment", "summarize", "write", "markdown",
           "ascii_plot", "geomean", "now_iso", "stem"]
