"""Many processes (or threads) of one node start together with an empty kernel cache: how many
compiles, and how long until each has its first kernel. No GPU needed.

    python -m benchmarks.cache_concurrency                 # results/cache_concurrency-<date>.*
    python -m benchmarks.cache_concurrency --quick         # a smoke run, nothing written

Each process is a fresh Python (`python -m benchmarks.cache_concurrency --worker`) that imports
safekern, waits at a barrier for the others (so that they all miss at once), then asks the
process's kernel cache (`get_kernel_cache()`, SAFEKERN_CACHE pointing at a new file) for the
same `--kernels` kernels in the same order. A "compile" is `--compile-ms` of CPU work (a busy
loop on the thread's CPU time, as a compiler would load the CPU) returning a random payload; every
compile appends a line to a log, which gives the compile count and when each build ended.

Scenarios: 1, 8 and 16 processes sharing one cache file (one builds each kernel, the others wait
for it: SAFEKERN_CACHE_LOCK_TIMEOUT), the same with SAFEKERN_CACHE=off (each compiles for
itself, the baseline), and 8 threads of one process. Times are from the barrier's release.
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
import threading
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent


def _burn(seconds: float) -> None:
    # The calling thread's CPU time: threads of one process compile side by side too.
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def _kernel(log_path: str, k: int, compile_s: float, payload_bytes: int, who: str):
    def compile_fn() -> bytes:
        _burn(compile_s)
        with open(log_path, "a") as log:        # O_APPEND: one line per write
            log.write(f"{k} {who} {time.time():.6f}\n")
        return os.urandom(payload_bytes)
    return compile_fn


def _ask(kc, log_path, k, compile_s, payload_bytes, who) -> bytes:
    fields = {"kernel": f"k{k}", "source": f"kernel {k} of the concurrency benchmark",
              "backend": "benchmark"}
    fn = _kernel(log_path, k, compile_s, payload_bytes, who)
    if kc is None:
        return fn()
    return kc.get_or_compile(fields, fn, describe=f"benchmark kernel k{k}")


def worker(args) -> int:
    """One process of a scenario: barrier, then --kernels lookups (in --threads threads)."""
    from safekern.cache.kernels import get_kernel_cache

    kc = get_kernel_cache()
    ready = time.time()
    Path(args.barrier + f".ready.{os.getpid()}").touch()
    while not os.path.exists(args.barrier):
        time.sleep(0.0005)
    go = os.stat(args.barrier).st_mtime
    rows = []

    def run(t):
        who = f"{os.getpid()}.{t}"
        times = []
        for k in range(args.kernels):
            _ask(kc, args.log, k, args.compile_ms / 1000, args.payload, who)
            times.append(time.time())
        rows.append({"who": who, "ready": ready, "go": go, "first": times[0], "all": times[-1],
                     "per_kernel": times})

    threads = [threading.Thread(target=run, args=(t,)) for t in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(args.out_rows, "a") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    return 0


def run_scenario(name, processes, threads, cached, settings, directory) -> dict:
    tag = f"{name}-{time.monotonic_ns()}"
    cache = os.path.join(directory, f"{tag}.cache")
    log = os.path.join(directory, f"{tag}.log")
    rows_path = os.path.join(directory, f"{tag}.rows")
    barrier = os.path.join(directory, f"{tag}.go")
    open(log, "w").close()
    env = dict(os.environ, SAFEKERN_CACHE=cache if cached else "off",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "benchmarks.cache_concurrency", "--worker",
           "--barrier", barrier, "--log", log, "--out-rows", rows_path,
           "--threads", str(threads), "--kernels", str(settings["kernels"]),
           "--compile-ms", str(settings["compile_ms"]), "--payload", str(settings["payload"])]
    launched = time.time()
    procs = [subprocess.Popen(cmd, env=env, cwd=ROOT) for _ in range(processes)]
    try:
        deadline = time.monotonic() + 300
        while len([n for n in os.listdir(directory) if n.startswith(f"{tag}.go.ready.")]) < \
                processes:
            if time.monotonic() > deadline or any(p.poll() not in (None, 0) for p in procs):
                raise RuntimeError(f"{name}: workers did not start")
            time.sleep(0.005)
        Path(barrier).touch()
        for p in procs:
            if p.wait(600) != 0:
                raise RuntimeError(f"{name}: a worker exited with status {p.returncode}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    rows = [json.loads(line) for line in open(rows_path)]
    builds = [line.split() for line in open(log)]
    go = rows[0]["go"]
    build_end, builders = {}, {}
    for k, who, when in builds:
        build_end.setdefault(int(k), float(when))
        builders.setdefault(int(k), set()).add(who)
    # How long after a kernel's first build ended each waiter had it (not its builders).
    after_build = [row["per_kernel"][k] - build_end[k] for row in rows
                   for k in range(settings["kernels"])
                   if cached and row["who"] not in builders[k]]
    return {"scenario": name, "processes": processes, "threads": threads, "cached": cached,
            "askers": len(rows), "compiles": len(builds),
            "compiles_per_kernel": round(len(builds) / settings["kernels"], 2),
            "start_up_s": round(max(r["ready"] for r in rows) - launched, 3),
            "first_result_s": _stats([r["first"] - go for r in rows]),
            "all_results_s": _stats([r["all"] - go for r in rows]),
            "waiter_delay_after_build_ms": _stats([d * 1000 for d in after_build])
            if after_build else None}


def _stats(values) -> dict:
    values = sorted(values)
    return {"median": round(statistics.median(values), 4), "max": round(values[-1], 4),
            "min": round(values[0], 4)}


SCENARIOS = [  # name, processes, threads per process, cached
    ("1 process", 1, 1, True),
    ("8 processes", 8, 1, True),
    ("16 processes", 16, 1, True),
    ("8 threads, 1 process", 1, 8, True),
    ("8 processes, no cache", 8, 1, False),
    ("16 processes, no cache", 16, 1, False),
    ("8 threads, no cache", 1, 8, False),
]


def _median_run(runs: list[dict]) -> dict:
    """The run with the median time to every result, with the spread of the others."""
    ordered = sorted(runs, key=lambda r: r["all_results_s"]["max"])
    chosen = dict(ordered[len(ordered) // 2])
    chosen["repeats"] = len(runs)
    chosen["compiles_each_run"] = [r["compiles"] for r in runs]
    chosen["all_results_max_each_run_s"] = [r["all_results_s"]["max"] for r in runs]
    chosen["load_each_run"] = [round(r["load_average_before"], 1)
                               if r.get("load_average_before") is not None else None
                               for r in runs]
    return chosen


def _markdown(result) -> str:
    s = result["settings"]
    lines = [f"# Kernel cache: many processes of one node, {result['date']}", "",
             f"Command: `{result['command']}`", "",
             f"Host: {result['host']['platform']}, {result['host']['cpu_count']} CPUs, Python "
             f"{result['host']['python']}, load average at start "
             f"{result['host']['load_average_at_start']}.", "",
             f"Each asker wants the same {s['kernels']} kernels in the same order; a compile is "
             f"{s['compile_ms']} ms of CPU work and gives {s['payload']} bytes. Times are from "
             "the release of the barrier that all processes reach after importing safekern "
             f"(median run of {s['repeats']}, the scenarios interleaved; min / median / max "
             "over the askers).", "",
             "| scenario | askers | compiles (per kernel) | first result, s | all results, s "
             "| waiters' delay after the build, ms |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in result["scenarios"]:
        f, a, d = r["first_result_s"], r["all_results_s"], r["waiter_delay_after_build_ms"]
        delay = f"{d['min']:.1f} / {d['median']:.1f} / {d['max']:.1f}" if d else "-"
        lines.append(f"| {r['scenario']} | {r['askers']} | {r['compiles']} "
                     f"({r['compiles_per_kernel']:g}) | {f['min']:.2f} / {f['median']:.2f} / "
                     f"{f['max']:.2f} | {a['min']:.2f} / {a['median']:.2f} / {a['max']:.2f} | "
                     f"{delay} |")
    lines += ["", "Compiles in every run: " + "; ".join(
        f"{r['scenario']}: {r['compiles_each_run']}" for r in result["scenarios"]), "",
        "All results in every run (s, the slowest asker): " + "; ".join(
            f"{r['scenario']}: {r['all_results_max_each_run_s']}" for r in result["scenarios"]),
        "", "Load average (1 min) before each run: " + "; ".join(
            f"{r['scenario']}: {r['load_each_run']}" for r in result["scenarios"]), ""]
    return "\n".join(lines)


def _host() -> dict:
    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "load_average_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cache_concurrency",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="one short repeat: a smoke run")
    p.add_argument("--out", default=str(RESULTS), help="directory for the report files")
    p.add_argument("--kernels", type=int, default=4, help="kernels each asker wants (4)")
    p.add_argument("--compile-ms", type=float, default=300.0, help="CPU ms per compile (300)")
    p.add_argument("--payload", type=int, default=65536, help="bytes per kernel (65536)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each scenario (3)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--barrier", help=argparse.SUPPRESS)
    p.add_argument("--log", help=argparse.SUPPRESS)
    p.add_argument("--out-rows", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args)
    if args.quick:
        args.kernels, args.compile_ms, args.repeats = 2, 50.0, 1
    settings = {"kernels": args.kernels, "compile_ms": args.compile_ms,
                "payload": args.payload, "repeats": args.repeats}
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "host": _host(), "settings": settings,
              "command": " ".join(["python -m benchmarks.cache_concurrency",
                                   shlex.join(sys.argv[1:] if argv is None else argv)]).strip(),
              "scenarios": []}
    scenarios = SCENARIOS[:2] + SCENARIOS[3:5] if args.quick else SCENARIOS
    runs = {name: [] for name, *_ in scenarios}
    with tempfile.TemporaryDirectory(prefix="safekern-bench-") as directory:
        # Repeats outermost: a change in the machine's load hits every scenario alike.
        for _ in range(args.repeats):
            for name, processes, threads, cached in scenarios:
                load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
                run = run_scenario(name, processes, threads, cached, settings, directory)
                run["load_average_before"] = load
                runs[name].append(run)
                print(json.dumps(run), file=sys.stderr, flush=True)
    result["scenarios"] = [_median_run(runs[name]) for name, *_ in scenarios]
    text = _markdown(result)
    print(text)
    if not args.quick:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"cache_concurrency-{result['date'][:10]}"
        (out / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
        (out / f"{stem}.md").write_text(text + "\n")
        print(f"wrote {out / stem}.json and .md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
