"""Warm start on a new node: an empty local cache file and a warm Redis (the remote tier),
against a cold start and a local-warm start. No GPU needed; needs redis-server and the redis
client (safekern[redis]).

    python -m benchmarks.cache_remote                  # results/cache_remote-<date>.md/.json
    python -m benchmarks.cache_remote --quick          # a smoke run, nothing written

Each start is a fresh Python process (`--worker`) that asks its kernel cache
(`get_kernel_cache()`, from SAFEKERN_CACHE and SAFEKERN_CACHE_REMOTE*) for `--kernels` kernels of
`--payload` bytes; a compile is `--compile-ms` of CPU work. A redis-server of the benchmark's
own runs on 127.0.0.1 with no persistence. Reported: the time from launching the process to its
last kernel, and the kernels' part (after importing safekern), median of `--repeats`.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .cache_concurrency import _burn, _host

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
SECRET = "benchmark secret, not for production use"


def worker(args) -> int:
    t0 = time.time()
    from safekern.cache.kernels import get_kernel_cache

    kc = get_kernel_cache()
    imported = time.time()
    compiles = 0
    for k in range(args.kernels):
        def compile_fn(k=k):
            nonlocal compiles
            compiles += 1
            _burn(args.compile_ms / 1000)
            return bytes([k % 256]) * args.payload
        got = kc.get_or_compile({"kernel": f"k{k}", "source": f"benchmark kernel {k}"},
                                compile_fn, describe=f"benchmark kernel k{k}")
        assert got == bytes([k % 256]) * args.payload
    done = time.time()
    counts = kc.remote.counts if kc.remote is not None else {}
    print(json.dumps({"started": t0, "imported": imported, "done": done, "compiles": compiles,
                      "remote": counts}))
    return 0


class Server:
    def __init__(self, directory):
        exe = shutil.which("redis-server")
        if exe is None:
            raise SystemExit("redis-server is not installed (apt-get install redis-server)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", directory], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise SystemExit("redis-server did not start")

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self, *args):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port).execute_command(*args)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()


def start(settings, cache, remote_url, processes=1, trust=False) -> list[dict]:
    env = dict(os.environ, SAFEKERN_CACHE=cache,
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    for name in ("SAFEKERN_CACHE_REMOTE", "SAFEKERN_CACHE_REMOTE_KEY",
                 "SAFEKERN_CACHE_REMOTE_TRUST"):
        env.pop(name, None)
    if remote_url:
        env["SAFEKERN_CACHE_REMOTE"] = remote_url
        if trust:
            env["SAFEKERN_CACHE_REMOTE_TRUST"] = "1"
        else:
            env["SAFEKERN_CACHE_REMOTE_KEY"] = SECRET
    cmd = [sys.executable, "-m", "benchmarks.cache_remote", "--worker",
           "--kernels", str(settings["kernels"]), "--payload", str(settings["payload"]),
           "--compile-ms", str(settings["compile_ms"])]
    launched = time.time()
    procs = [subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
             for _ in range(processes)]
    out = []
    for p in procs:
        text, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"worker exited with status {p.returncode}")
        row = json.loads(text.strip().splitlines()[-1])
        row["total_s"] = row["done"] - launched
        row["kernels_s"] = row["done"] - row["imported"]
        out.append(row)
    return out


def measure(name, settings, directory, server, prepare, processes=1, trust=False,
            remote=True, count_gets=True) -> dict:
    """One start: `prepare(cache_path)` sets up the local file and Redis first."""
    cache = os.path.join(directory, f"{name.replace(' ', '_')}-{time.monotonic_ns()}.cache")
    prepare(cache)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    before = server.command("INFO", "commandstats") if count_gets else {}
    rows = start(settings, cache, server.url if remote else None, processes, trust)
    after = server.command("INFO", "commandstats") if count_gets else {}
    run = {"scenario": name, "processes": processes,
           "total_s": max(r["total_s"] for r in rows),
           "kernels_s": max(r["kernels_s"] for r in rows),
           "compiles": sum(r["compiles"] for r in rows),
           "redis_gets": _calls(after, "get") - _calls(before, "get"),
           "remote_counts": rows[0]["remote"], "load_average_before": load}
    print(json.dumps(run), file=sys.stderr, flush=True)
    return run


def _summary(runs: list[dict]) -> dict:
    row = dict(runs[-1])
    row.pop("load_average_before")
    row["total_s"] = round(statistics.median(r["total_s"] for r in runs), 4)
    row["kernels_s"] = round(statistics.median(r["kernels_s"] for r in runs), 4)
    row["kernels_s_each_run"] = [round(r["kernels_s"], 4) for r in runs]
    row["load_each_run"] = [None if r["load_average_before"] is None else
                            round(r["load_average_before"], 1) for r in runs]
    return row


def _calls(info, command) -> int:
    stats = info.get(f"cmdstat_{command}") if isinstance(info, dict) else None
    return int(stats.get("calls", 0)) if stats else 0


def run(settings, directory) -> list[dict]:
    os.makedirs(os.path.join(directory, "redis"))
    server = Server(os.path.join(directory, "redis"))
    try:
        warm_local = os.path.join(directory, "warm-local.cache")

        def empty_everything(cache):
            server.command("FLUSHALL")

        def warm_redis(cache):
            server.command("FLUSHALL")
            start(settings, os.path.join(directory, f"seed-{time.monotonic_ns()}.cache"),
                  server.url)

        def warm_redis_unsigned(cache):
            server.command("FLUSHALL")
            start(settings, os.path.join(directory, f"seed-{time.monotonic_ns()}.cache"),
                  server.url, trust=True)

        def local_file(cache):
            if not os.path.exists(warm_local):
                start(settings, warm_local, None)
            shutil.copyfile(warm_local, cache)
            os.chmod(cache, 0o600)

        scenarios = [
            ("cold: empty local file, empty Redis", empty_everything, {}),
            ("new node: empty local file, warm Redis (signed)", warm_redis, {}),
            ("new node: empty local file, warm Redis (unsigned, TRUST=1)",
             warm_redis_unsigned, {"trust": True}),
            ("local warm: filled local file (Redis configured, not asked)", local_file, {}),
            ("local warm, no remote tier configured", local_file, {"remote": False}),
            ("8 processes of a new node at once (warm Redis)", warm_redis, {"processes": 8}),
            ("Redis stopped (SIGSTOP), empty local file", None, {"count_gets": False}),
        ]
        runs = {name: [] for name, _, _ in scenarios}
        # Repeats outermost: a change in the machine's load hits every scenario alike.
        for _ in range(settings["repeats"]):
            for name, prepare, options in scenarios:
                if prepare is not None:
                    runs[name].append(measure(name, settings, directory, server, prepare,
                                              **options))
                    continue
                server.proc.send_signal(signal.SIGSTOP)  # accepts connections, never answers
                try:
                    runs[name].append(measure(name, settings, directory, server,
                                              lambda cache: None, **options))
                finally:
                    server.proc.send_signal(signal.SIGCONT)
        return [_summary(runs[name]) for name, _, _ in scenarios]
    finally:
        server.stop()


def _markdown(result) -> str:
    s = result["settings"]
    lines = [f"# Kernel cache: warm start on a new node through Redis, {result['date']}", "",
             f"Command: `{result['command']}`", "",
             f"Host: {result['host']['platform']}, {result['host']['cpu_count']} CPUs, Python "
             f"{result['host']['python']}, load average at start "
             f"{result['host']['load_average_at_start']}; redis-server on 127.0.0.1.", "",
             f"Each start is a new Python process wanting {s['kernels']} kernels of "
             f"{s['payload']} bytes; a compile is {s['compile_ms']} ms of CPU work. Median of "
             f"{s['repeats']} starts, the scenarios interleaved. *Total*: from launching the "
             "process to its last kernel (Python, imports, kernels); *kernels*: after importing "
             "safekern.", "",
             "| start | total, s | kernels, s | compiles | Redis GETs |",
             "|---|---:|---:|---:|---:|"]
    for r in result["scenarios"]:
        lines.append(f"| {r['scenario']} | {r['total_s']:.3f} | {r['kernels_s']:.3f} | "
                     f"{r['compiles']} | {r['redis_gets'] if r['redis_gets'] else '-'} |")
    lines += ["", "Kernels' part of every start (s): " + "; ".join(
        f"{r['scenario']}: {r['kernels_s_each_run']}" for r in result["scenarios"]), "",
        "Load average (1 min) before each start: " + "; ".join(
            f"{r['scenario']}: {r['load_each_run']}" for r in result["scenarios"]), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cache_remote", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="one short repeat: a smoke run")
    p.add_argument("--out", default=str(RESULTS), help="directory for the report files")
    p.add_argument("--kernels", type=int, default=10, help="kernels per start (10)")
    p.add_argument("--payload", type=int, default=256 * 1024, help="bytes per kernel (256 KiB)")
    p.add_argument("--compile-ms", type=float, default=200.0, help="CPU ms per compile (200)")
    p.add_argument("--repeats", type=int, default=5, help="starts per scenario (5)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args)
    if args.quick:
        args.kernels, args.compile_ms, args.repeats = 3, 20.0, 1
    settings = {"kernels": args.kernels, "payload": args.payload,
                "compile_ms": args.compile_ms, "repeats": args.repeats}
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "host": _host(), "settings": settings,
              "command": " ".join(["python -m benchmarks.cache_remote",
                                   shlex.join(sys.argv[1:] if argv is None else argv)]).strip()}
    with tempfile.TemporaryDirectory(prefix="safekern-bench-") as directory:
        result["scenarios"] = run(settings, directory)
    text = _markdown(result)
    print(text)
    if not args.quick:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"cache_remote-{result['date'][:10]}"
        (out / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
        (out / f"{stem}.md").write_text(text + "\n")
        print(f"wrote {out / stem}.json and .md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
