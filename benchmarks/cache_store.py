"""Benchmarks of the single-file cache store (safekern.cache.Cache); no GPU needed.

    python -m benchmarks.cache_store                    # writes results/cache_store-<date>-<host>.*
    python -m benchmarks.cache_store --quick            # small sizes, a smoke run

Measures
- lookup latency with 10, 1 000 and 10 000 entries (goal: under 1 ms at 10 000): a hit in a
  process that has the file open, a miss, a hit through KernelCache (key encoding included), the
  first lookup of a new process (building the index), and the first lookup after another process
  appended one record (the index grows by reading only that record);
- insert cost as the file grows, and as the record grows (goal: proportional to the record, not
  to the file);
- one compaction at the bound.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from safekern.cache import Cache
from safekern.cache.kernels import KernelCache, kernel_key

RESULTS = Path(__file__).resolve().parent / "results"
SOURCE = "".join(f"    out[i + {n}] = a[i + {n}] * alpha + b[i];  // line {n}\n" for n in range(60))


def fields(n: int) -> dict:
    """Key fields shaped like a real kernel's (a few KiB of source, device, toolchain, options)."""
    return {"backend": "opencl", "kernel": f"kernel_{n}", "source": SOURCE + f"// {n}\n",
            "arg_types": (("float32", 1, "C"), ("float32", 1, "C"), ("float32", 0, "")),
            "options": ("-cl-std=CL2.0",), "checks": True,
            "toolchain": {"pyopencl": "2024.2.7", "pocl": "6.0"},
            "device": {"name": "cpu-haswell", "version": "OpenCL 3.0 PoCL", "driver": "6.0"},
            "env": {"POCL_DEVICES": "cpu"}}


def payload(n: int, size: int) -> bytes:
    return random.Random(n).randbytes(size)


def _percentiles(samples_s: list[float]) -> dict:
    us = sorted(s * 1e6 for s in samples_s)
    return {"median_us": round(statistics.median(us), 2),
            "p99_us": round(us[min(len(us) - 1, int(len(us) * 0.99))], 2),
            "max_us": round(us[-1], 2), "n": len(us)}


def _fill(path: str, count: int, size: int) -> list[bytes]:
    c = Cache(path)
    keys = [kernel_key(fields(n)) for n in range(count)]
    for n, key in enumerate(keys):
        c.put(key, payload(n, size), {"kernel": f"kernel_{n}", "backend": "opencl"})
    return keys


def bench_lookup(directory: str, counts, size: int, lookups: int) -> list[dict]:
    out = []
    for count in counts:
        path = os.path.join(directory, f"lookup-{count}.cache")
        keys = _fill(path, count, size)
        file_bytes = os.path.getsize(path)
        rng = random.Random(count)

        cold = []
        for _ in range(5):                        # a new process: open, index, first hit
            start = time.perf_counter()
            c = Cache(path)
            assert c.get(keys[rng.randrange(count)]) is not None
            cold.append(time.perf_counter() - start)
            c.close()

        c = Cache(path)
        c.get(keys[0])
        hits = []
        for _ in range(lookups):
            key = keys[rng.randrange(count)]
            start = time.perf_counter()
            got = c.get(key)
            hits.append(time.perf_counter() - start)
            assert got is not None and len(got) == size
        misses = []
        for n in range(lookups):
            key = kernel_key(fields(-1 - n))
            start = time.perf_counter()
            assert c.get(key) is None
            misses.append(time.perf_counter() - start)

        kc = KernelCache(c)
        via_kernel_cache = []
        for _ in range(lookups // 4):
            f = fields(rng.randrange(count))
            start = time.perf_counter()
            kc.get_or_compile(f, _never)
            via_kernel_cache.append(time.perf_counter() - start)

        writer = Cache(path)
        after_append = []
        for n in range(50):                       # another process appends one record
            key = kernel_key(fields(count + n))
            writer.put(key, payload(count + n, size))
            start = time.perf_counter()
            assert c.get(key) is not None
            after_append.append(time.perf_counter() - start)

        out.append({"entries": count, "payload_bytes": size,
                    "file_bytes": file_bytes, "key_bytes": len(keys[0]),
                    "hit": _percentiles(hits), "miss": _percentiles(misses),
                    "hit_via_kernel_cache": _percentiles(via_kernel_cache),
                    "first_hit_after_another_process_appended": _percentiles(after_append),
                    "open_index_and_first_hit": _percentiles(cold)})
        _report_progress(out[-1])
        os.unlink(path)
    return out


def _never():
    raise AssertionError("every key is in the cache")


def bench_insert_growth(directory: str, total: int, size: int, checkpoints) -> list[dict]:
    """Per-put time in windows of 100 puts, as the file grows to `total` records."""
    path = os.path.join(directory, "growth.cache")
    c = Cache(path)
    out = []
    window = []
    for n in range(total):
        key = kernel_key(fields(n))
        data = payload(n, size)
        start = time.perf_counter()
        assert c.put(key, data)
        window.append(time.perf_counter() - start)
        if n + 1 in checkpoints:
            row = {"entries_before": n + 1 - len(window), "file_bytes": os.path.getsize(path),
                   "payload_bytes": size, **_percentiles(window)}
            out.append(row)
            _report_progress(row)
        if len(window) == 100:
            window = []
    os.unlink(path)
    return out


def bench_insert_size(directory: str, sizes, prefill: int) -> list[dict]:
    """Put time by payload size, on a file that already holds `prefill` 16 KiB records."""
    path = os.path.join(directory, "sizes.cache")
    _fill(path, prefill, 16384)
    c = Cache(path)
    out = []
    for size in sizes:
        times = []
        reps = max(5, min(200, (64 << 20) // max(size, 1) // 4))
        for r in range(reps):
            key = kernel_key(fields(10**6 + size * 1000 + r))
            data = payload(r, size)
            start = time.perf_counter()
            assert c.put(key, data)
            times.append(time.perf_counter() - start)
        row = {"payload_bytes": size, **_percentiles(times),
               "median_us_per_mib": round(statistics.median(times) * 1e6 / (size / 2**20), 1)}
        out.append(row)
        _report_progress(row)
    os.unlink(path)
    return out


def bench_compaction(directory: str, bound: int, size: int) -> dict:
    path = os.path.join(directory, "compact.cache")
    c = Cache(path, max_bytes=bound)
    n = 0
    times = []
    while True:
        key = kernel_key(fields(n))
        before = os.path.getsize(path)
        start = time.perf_counter()
        assert c.put(key, payload(n, size))
        times.append(time.perf_counter() - start)
        n += 1
        if os.path.getsize(path) < before:
            break
    row = {"bound_bytes": bound, "payload_bytes": size, "puts_until_compaction": n,
           "file_bytes_before": before, "file_bytes_after": os.path.getsize(path),
           "entries_after": len(c), "compacting_put_ms": round(times[-1] * 1e3, 2),
           "ordinary_put_median_us": round(statistics.median(times[:-1]) * 1e6, 2)}
    _report_progress(row)
    os.unlink(path)
    return row


def _report_progress(row) -> None:
    print(json.dumps(row), file=sys.stderr, flush=True)


def _host() -> dict:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpu_count": os.cpu_count(), "load_average_at_start": load,
            "processor": platform.processor() or platform.machine()}


def _markdown(result: dict) -> str:
    lines = [f"# Cache store benchmark, {result['date']}", "",
             f"Command: `{result['command']}`", "",
             f"Host: {result['host']['platform']}, {result['host']['cpu_count']} CPUs, Python "
             f"{result['host']['python']}, load average at start "
             f"{result['host']['load_average_at_start']}; files in `{result['directory']}`.", "",
             "## Lookup latency (µs; median / p99)", "",
             "| entries | file | hit | miss | hit via KernelCache | first hit after another "
             "process appended | new process: open + index + first hit |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in result["lookup"]:
        cells = [f"{r[k]['median_us']:.1f} / {r[k]['p99_us']:.1f}" for k in
                 ("hit", "miss", "hit_via_kernel_cache",
                  "first_hit_after_another_process_appended", "open_index_and_first_hit")]
        lines.append(f"| {r['entries']} | {r['file_bytes'] / 2**20:.1f} MiB | " +
                     " | ".join(cells) + " |")
    lines += ["", f"Payloads {result['lookup'][0]['payload_bytes']} bytes, keys "
              f"{result['lookup'][0]['key_bytes']} bytes of key material.", "",
              "## Insert cost as the file grows (µs per put, 100 puts per row)", "",
              "| entries before | file after | median | p99 |", "|---:|---:|---:|---:|"]
    for r in result["insert_growth"]:
        lines.append(f"| {r['entries_before']} | {r['file_bytes'] / 2**20:.1f} MiB | "
                     f"{r['median_us']:.1f} | {r['p99_us']:.1f} |")
    lines += ["", "## Insert cost by record size (on a file of "
              f"{result['insert_size_prefill']} entries)", "",
              "| payload | median µs | p99 µs | median µs per MiB |", "|---:|---:|---:|---:|"]
    for r in result["insert_size"]:
        lines.append(f"| {r['payload_bytes']} | {r['median_us']:.1f} | {r['p99_us']:.1f} | "
                     f"{r['median_us_per_mib']:.0f} |")
    c = result["compaction"]
    lines += ["", "## One compaction", "",
              f"Bound {c['bound_bytes'] / 2**20:.0f} MiB, payloads {c['payload_bytes']} bytes: "
              f"the put that compacted took {c['compacting_put_ms']} ms "
              f"({c['file_bytes_before'] / 2**20:.1f} MiB -> {c['file_bytes_after'] / 2**20:.1f}"
              f" MiB, {c['entries_after']} entries kept); an ordinary put "
              f"{c['ordinary_put_median_us']} µs.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cache_store", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    p.add_argument("--dir", help="where the cache files go (default: a temporary directory)")
    p.add_argument("--out", default=str(RESULTS), help="directory for the report files")
    p.add_argument("--payload", type=int, default=16384, help="payload bytes (default 16384)")
    args = p.parse_args(argv)
    quick = args.quick
    counts = (10, 100) if quick else (10, 1000, 10000)
    growth_total = 500 if quick else 10000
    checkpoints = {100, 500} if quick else {100, 1000, 2500, 5000, 7500, 10000}
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="safekern-bench-") as directory:
        result = {"date": time.strftime("%Y-%m-%d %H:%M"), "host": _host(),
                  "command": " ".join(["python -m benchmarks.cache_store",
                                       shlex.join(sys.argv[1:] if argv is None else argv)]
                                      ).strip(),
                  "directory": os.path.dirname(directory), "quick": quick}
        result["lookup"] = bench_lookup(directory, counts, args.payload,
                                        500 if quick else 4000)
        result["insert_growth"] = bench_insert_growth(directory, growth_total, args.payload,
                                                      checkpoints)
        result["insert_size_prefill"] = 100 if quick else 2000
        result["insert_size"] = bench_insert_size(
            directory, (256, 4096, 65536, 1 << 20) if quick else
            (256, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20), result["insert_size_prefill"])
        result["compaction"] = bench_compaction(directory, (4 << 20) if quick else (64 << 20),
                                                args.payload)
    text = _markdown(result)
    print(text)
    if not quick:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"cache_store-{time.strftime('%Y-%m-%d')}"
        (out / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
        (out / f"{stem}.md").write_text(text + "\n")
        print(f"wrote {out / stem}.json and .md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
