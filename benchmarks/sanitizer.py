"""Mode 4: compute-sanitizer memcheck on the unchecked build, in a subprocess.

The sanitizer has to start the interpreter, so this mode runs
`compute-sanitizer --tool memcheck <python> -m benchmarks --worker sanitizer ...`: the worker
measures the chosen cases unchecked (same sizes, seed and verification as the main run, one step
per repetition, a few repetitions) and writes JSON; the parent adds memcheck's error summary and
the ratio to the main run's unchecked time.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent   # the directory that holds benchmarks/

DEFAULT_CASES = ("vector_add", "matmul_tiled", "spmv_csr")


def find(explicit: str | None = None) -> str | None:
    """The compute-sanitizer executable: explicit path, PATH, CUDA_HOME, the usual prefixes."""
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    candidates = [Path(os.environ[v]) / "bin" / "compute-sanitizer"
                  for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    candidates += sorted(Path("/usr/local").glob("cuda*/bin/compute-sanitizer"), reverse=True)
    candidates += [Path("/opt/nvidia/compute-sanitizer/compute-sanitizer")]
    try:    # the pip wheel nvidia-cuda-sanitizer-api
        import nvidia

        for base in map(Path, nvidia.__path__):
            candidates += sorted(base.glob("cuda_sanitizer_api/compute-sanitizer/"
                                           "compute-sanitizer"))
    except ImportError:
        pass
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def _version(tool: str) -> str | None:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"Version\s+(\S+)", out.stdout)
    return match.group(1) if match else (out.stdout.strip().splitlines() or [None])[-1]


def run(names, *, quick, seed, reps, timeout, tool=None, log=None) -> dict:
    """Run the worker under memcheck; {"status", "note", "cases": {name: result}, ...}."""
    from .harness import simulator

    if simulator():
        return {"status": "skipped", "note": "the CUDA simulator has no device to sanitize"}
    if not names:
        return {"status": "skipped", "note": "none of the --sanitizer-kernels is in this run"}
    path = find(tool)
    if path is None:
        return {"status": "skipped",
                "note": ("compute-sanitizer not found (looked on PATH, in $CUDA_HOME/bin, "
                         "/usr/local/cuda*/bin and the nvidia-cuda-sanitizer-api wheel); "
                         "pass --sanitizer PATH")}
    with tempfile.TemporaryDirectory(prefix="safekern-bench-") as tmp:
        out = Path(tmp) / "worker.json"
        command = [path, "--tool", "memcheck", "--leak-check", "no", "--print-limit", "20",
                   sys.executable, "-m", "benchmarks", "--worker", "sanitizer",
                   "--only", ",".join(names), "--reps", str(reps), "--seed", str(seed),
                   "--worker-out", str(out)] + (["--quick"] if quick else [])
        env = dict(os.environ, SAFEKERN_CHECKS="0",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                            os.environ.get("PYTHONPATH")])))
        if log:
            log(f"sanitizer: {' '.join(command[:3])} ... on {', '.join(names)}")
        t0 = time.perf_counter()
        # A session of its own: on timeout the sanitizer *and* the Python under it are stopped.
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            return {"status": "timeout", "tool": path, "version": _version(path),
                    "note": f"the memcheck worker ran past {timeout:g} s and was stopped",
                    "output_tail": (stdout + stderr)[-4000:]}
        elapsed = time.perf_counter() - t0
        result = {"tool": path, "version": _version(path), "returncode": proc.returncode,
                  "wall_s": elapsed, "command": " ".join(command)}
        summary = re.findall(r"ERROR SUMMARY:\s*(\d+)\s+error", stdout + stderr)
        result["errors"] = int(summary[-1]) if summary else None
        if out.exists():
            result["cases"] = {c["name"]: c for c in json.loads(out.read_text())["cases"]}
        if proc.returncode != 0 or not out.exists():
            result["status"] = "failed"
            result["output_tail"] = (stdout + stderr)[-4000:]
        else:
            result["status"] = "ok"
        if result["errors"]:
            result["status"] = "failed"
            result["note"] = f"memcheck reported {result['errors']} error(s)"
        return result


def attach_ratios(sanitizer_result: dict, case_results: list) -> None:
    """sanitizer ms per step / unchecked ms per step of the main run, into both results."""
    by_name = {r["name"]: r for r in case_results}
    for name, worker in (sanitizer_result.get("cases") or {}).items():
        rec = worker.get("modes", {}).get("unchecked", {})
        main = by_name.get(name)
        if main is None:
            continue
        if "ms_per_step" not in rec:
            main["modes"]["sanitizer"] = {"status": rec.get("status", "error"),
                                          "error": rec.get("error", "no timing came back")}
            continue
        base = main["modes"].get("unchecked", {}).get("ms_per_step")
        entry = {"status": rec.get("status", "ok"), "label": "compute-sanitizer memcheck",
                 "ms_per_step": rec["ms_per_step"], "verified": rec.get("verified", False)}
        main["modes"]["sanitizer"] = entry
        if base:
            main.setdefault("ratios", {})["sanitizer"] = (rec["ms_per_step"]["median"]
                                                          / base["median"])


def worker_main(names, settings, out_path) -> int:
    """Inside compute-sanitizer: the unchecked mode only, a step per repetition."""
    from . import harness, modes

    settings.warmup, settings.steps = 1, 1
    results = harness.run_cases(names, [modes.UNCHECKED], settings, log=harness.stderr_log)
    Path(out_path).write_text(json.dumps({"cases": results}, default=str))
    return 0 if all(r["modes"]["unchecked"]["status"] == "ok" for r in results) else 1


__all__ = ["DEFAULT_CASES", "find", "run", "attach_ratios", "worker_main"]
