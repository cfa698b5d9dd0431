"""Differential fuzzer of check elimination: random numba kernels, elimination on vs. every check.

    python -m tools.fuzz_elimination --count 100000 --seed 0 [--out DIR] [--minutes M]
    python -m tools.fuzz_elimination --opencl --count 2000      # OpenCL C kernels on PoCL
    python -m tools.fuzz_elimination --count 100000 --jobs 16   # 16 processes, seeds split
    python -m tools.fuzz_elimination --opencl-launch --minutes 15 --jobs 2   # C launch predicates
    python -m tools.fuzz_elimination --opencl --platform PoCL --jobs 60   # the PoCL of a GPU machine
    python -m tools.fuzz_elimination --overflow --platform PoCL --jobs 60 # overflowing int indexes

Each seed's kernel (tests/support/fuzz_kernels.py) runs on the CUDA simulator twice, with elimination
and loop versioning on and with every check kept (tests/support/differential.py); any difference in a
thread's first failure, in what escapes the launch, or in the outputs is a bug of the
elimination. The kernel of each differing seed is written to DIR (kept for a regression test),
and a line per differing seed and a progress line every 1000 kernels go to stdout. Exits 1 if
any seed differed. The simulator is selected here; run it without a GPU or with
NUMBA_ENABLE_CUDASIM=1.
"""
from __future__ import annotations

import argparse
import faulthandler
import os
import shutil
import sys
import tempfile
import time
import warnings

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"          # before numba is imported
os.environ["SAFEKERN_CACHE"] = "off"


_SEED_FILE: str | None = None      # --seed-file: where the seed now running is written


def _running(seed: int) -> None:
    """Say which seed runs now (`--jobs` reads it when a driver crashes the process)."""
    if _SEED_FILE is not None:
        with open(_SEED_FILE, "w") as f:
            f.write(str(seed))


def regression_file(fk, diffs) -> str:
    """The kernel's module, with what differed and its launch and arguments (`FUZZ_CASE`,
    read by tests/frontend/test_fuzz_elimination.py) -- a regression test as it stands."""
    head = "".join(f"# {line[:300]}\n" for line in diffs)
    return f"{head}{fk.source}\n\nFUZZ_CASE = {fk.spec()!r}\n"


def run(count: int, seed: int, out: str | None, minutes: float | None, log=print) -> dict:
    from tests.support import differential, fuzz_kernels

    work = tempfile.mkdtemp(prefix="safekern-fuzz-")
    start = time.monotonic()
    found, artifacts, done = [], [], 0
    try:
        for s in range(seed, seed + count):
            _running(s)
            if minutes is not None and time.monotonic() - start > minutes * 60:
                break
            fk = fuzz_kernels.generate(s)
            path = os.path.join(work, f"fuzz_{s}.py")
            with open(path, "w") as f:
                f.write(fk.source)
            before = len(differential.ARTIFACTS)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")       # NumPy's overflow warnings, numba's
                diffs = differential.compare_file(path, fk.kernel, fk.griddim, fk.blockdim,
                                                  fk.arguments)
            if len(differential.ARTIFACTS) > before:
                artifacts.append(s)
                log(f"seed {s}: set apart, {differential.ARTIFACTS[-1]} (exits.py groups)")
            os.remove(path)
            done += 1
            if diffs:
                found.append(s)
                log(f"seed {s}: " + " / ".join(diffs))
                if out:
                    os.makedirs(out, exist_ok=True)
                    with open(os.path.join(out, f"fuzz_{s}.py"), "w") as f:
                        f.write(regression_file(fk, diffs))
            if done % 1000 == 0:
                log(f"{done} kernels, {len(found)} differing, "
                    f"{time.monotonic() - start:.0f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"kernels": done, "differing": found, "seconds": time.monotonic() - start,
            "set_apart": artifacts}


#: A differing C kernel is built again so: if the two builds agree unoptimised, the difference
#: comes from the optimiser -- undefined behaviour in the generated kernel (a signed `int`
#: overflow: seed 102777875) or a check the compiler undid (seed 6125143, a crash): either
#: way the line says so, for the triage; it still counts as differing.
UNOPTIMISED = ["-cl-opt-disable"]


def _unoptimised(again: list, diffs: list) -> list:
    """The note for a differing kernel's unoptimised builds (none when nothing differed)."""
    if not diffs:
        return []
    if again:
        return ["unoptimised (-cl-opt-disable) too: " + " / ".join(again)]
    return ["only when optimised: -cl-opt-disable builds agree (undefined behaviour in the "
            "kernel, or a check the optimiser undid)"]


def opencl_context(platform: str | None):
    """A context on the first device of the first platform whose name or version contains
    `platform` (case-insensitive), or PyOpenCL's choice (PYOPENCL_CTX, else the first
    platform). A GPU machine lists NVIDIA's platform first, where which work-item fails first
    is not ordered: the fuzzers compare the first failure, so they run on PoCL there
    (`--platform PoCL`)."""
    import pyopencl as cl

    if not platform:
        return cl.create_some_context(interactive=False)
    for p in cl.get_platforms():
        if platform.lower() in f"{p.name} {p.version}".lower():      # (PoCL: in the version)
            return cl.Context(devices=p.get_devices()[:1])
    raise SystemExit(f"no OpenCL platform named like {platform!r}: "
                     f"{[p.name for p in cl.get_platforms()]}")


def run_opencl(count: int, seed: int, out: str | None, minutes: float | None, log=print,
               platform: str | None = None) -> dict:
    """The same for OpenCL C kernels (tests/support/fuzz_opencl.py) on the first OpenCL platform
    (or the one named)."""
    os.environ.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    import pyopencl as cl

    from tests.support import fuzz_opencl

    class Env:
        ctx = opencl_context(platform)
        queue = cl.CommandQueue(ctx)

    start = time.monotonic()
    found, done = [], 0
    for s in range(seed, seed + count):
        _running(s)
        if minutes is not None and time.monotonic() - start > minutes * 60:
            break
        k = fuzz_opencl.generate(s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            diffs = fuzz_opencl.differences(Env, k)
            if diffs:
                diffs += _unoptimised(fuzz_opencl.differences(Env, k, options=UNOPTIMISED),
                                      diffs)
        done += 1
        if diffs:
            found.append(s)
            log(f"seed {s}: " + " / ".join(diffs))
            if out:
                os.makedirs(out, exist_ok=True)
                with open(os.path.join(out, f"fuzz_{s}.cl"), "w") as f:
                    f.write(k.regression_file(diffs))
        if done % 100 == 0:
            log(f"{done} kernels, {len(found)} differing, {time.monotonic() - start:.0f} s")
    return {"kernels": done, "differing": found, "seconds": time.monotonic() - start}


def run_opencl_launch(count: int, seed: int, out: str | None, minutes: float | None,
                      log=print, platform: str | None = None) -> dict:
    """OpenCL C kernels and launches (tests/support/fuzz_launch_opencl.py) with launch predicates
    on and off: the same failures and outputs. PoCL runs on one thread here, so that which
    work-group fails first does not depend on its scheduling."""
    os.environ.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    os.environ["POCL_MAX_PTHREAD_COUNT"] = "1"
    os.environ["POCL_CPU_MAX_CU_COUNT"] = "1"
    import pyopencl as cl

    from tests.support import fuzz_launch_opencl

    class Env:
        ctx = opencl_context(platform)
        queue = cl.CommandQueue(ctx)

    start = time.monotonic()
    found, done, launches = [], 0, 0
    for s in range(seed, seed + count):
        _running(s)
        if minutes is not None and time.monotonic() - start > minutes * 60:
            break
        k = fuzz_launch_opencl.generate(s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            diffs = fuzz_launch_opencl.differences(Env, k)
            if diffs:
                diffs += _unoptimised(
                    fuzz_launch_opencl.differences(Env, k, options=UNOPTIMISED), diffs)
        done += 1
        launches += len(k.launches)
        if diffs:
            found.append(s)
            log(f"seed {s}: " + " / ".join(diffs))
            if out:
                os.makedirs(out, exist_ok=True)
                with open(os.path.join(out, f"lfuzz_{s}.cl"), "w") as f:
                    f.write(k.regression_file(diffs))
        if done % 50 == 0:
            log(f"{done} kernels ({launches} launches), {len(found)} differing, "
                f"{time.monotonic() - start:.0f} s; ran {fuzz_launch_opencl.STATS}")
    log(f"launches with predicates on ran: {fuzz_launch_opencl.STATS}")
    return {"kernels": done, "differing": found, "seconds": time.monotonic() - start,
            "launches": launches}


def run_overflow(count: int, seed: int, out: str | None, minutes: float | None, log=print,
                 platform: str | None = None) -> dict:
    """`--overflow`: OpenCL C kernels whose index is an `int` arithmetic that overflows
    (tests/support/overflow_kernels.py), built checked and launched on PoCL: nothing to
    compare -- a kernel that crashes the process is the finding (with `--jobs`, reported
    with its seed: a check the compiler let an address past)."""
    os.environ.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    import pyopencl as cl

    from tests.support import overflow_kernels

    ctx = opencl_context(platform)
    queue = cl.CommandQueue(ctx)
    start, done = time.monotonic(), 0
    for s in range(seed, seed + count):
        _running(s)
        if minutes is not None and time.monotonic() - start > minutes * 60:
            break
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            overflow_kernels.run(ctx, queue, overflow_kernels.generate(s))
        done += 1
        if done % 100 == 0:
            log(f"{done} kernels, {time.monotonic() - start:.0f} s")
    return {"kernels": done, "differing": [], "seconds": time.monotonic() - start}


def _child(args, first: int, count: int, minutes: float | None, seed_file: str) -> list:
    return [sys.executable, "-m", "tools.fuzz_elimination", "--count", str(count),
            "--seed", str(first), "--seed-file", seed_file] + \
        (["--out", args.out] if args.out else []) + \
        (["--minutes", f"{minutes:.3f}"] if minutes is not None else []) + \
        (["--opencl"] if args.opencl else []) + \
        (["--opencl-launch"] if args.opencl_launch else []) + \
        (["--overflow"] if args.overflow else []) + \
        (["--platform", args.platform] if args.platform else [])


def run_jobs(args) -> int:
    """`--jobs N`: the seed range split into N contiguous slices, one process each (the
    simulator is single-threaded); their summaries added up. A process that a driver crashes
    (PoCL runs the kernels in the process) is reported with the seed it was running -- a
    kernel to run alone: undefined behaviour in it, or a check that let an access through --
    and its slice goes on from the next seed in a new process."""
    import re
    import subprocess

    per = -(-args.count // args.jobs)
    start = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="fuzz_jobs_")
    running = []                           # (process, output file, seed file, first, end)

    def launch(first, end):
        n = len(running) + len(finished) + len(crashed)
        seed_file, out_file = (os.path.join(scratch, f"{n}.{x}") for x in ("seed", "out"))
        left = None if args.minutes is None else \
            max(0.0, args.minutes - (time.monotonic() - start) / 60)
        out = open(out_file, "w")
        proc = subprocess.Popen(_child(args, first, end - first, left, seed_file),
                                stdout=out, stderr=subprocess.STDOUT, text=True)
        out.close()
        running.append((proc, out_file, seed_file, first, end))

    finished, crashed = [], []
    for j in range(args.jobs):
        first, end = args.seed + j * per, min(args.seed + (j + 1) * per, args.seed + args.count)
        if end > first:
            launch(first, end)
    kernels, differing, failed = 0, [], 0
    while running:
        time.sleep(0.5)
        for item in [x for x in running if x[0].poll() is not None]:
            running.remove(item)
            proc, out_file, seed_file, first, end = item
            output = open(out_file).read()
            for line in output.splitlines():
                if line.startswith("seed ") or line.startswith("done:"):
                    print(line, flush=True)
            done = re.search(r"^done: (\d+) kernels", output, re.M)
            kernels += int(done.group(1)) if done else 0
            differing += [int(x) for x in re.findall(r"^seed (\d+): ", output, re.M)
                          if "set apart" not in output.split(f"seed {x}: ", 1)[1][:40]]
            finished.append(proc.pid)
            if done is not None and proc.returncode in (0, 1):
                continue
            at = open(seed_file).read().strip() if os.path.exists(seed_file) else ""
            if proc.returncode < 0 and at:           # killed by a signal in a kernel
                seed = int(at)
                crashed.append(seed)
                kernels += seed - first
                print(f"seed {seed}: crashed the process (signal {-proc.returncode}); run it "
                      "alone", *output.splitlines()[-12:], sep="\n    ", flush=True)
                if seed + 1 < end and (args.minutes is None or
                                       time.monotonic() - start < args.minutes * 60):
                    launch(seed + 1, end)
                continue
            # (a process that died otherwise says why: its exit status and its last lines)
            failed += 1
            print(f"process from seed {first} exited {proc.returncode}:",
                  *output.splitlines()[-25:], sep="\n    ", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"all: {kernels} kernels in {time.monotonic() - start:.0f} s with {len(finished)} "
          f"processes, {len(differing)} differing: {differing[:50]}"
          + (f"; {len(crashed)} crashed: {crashed[:50]}" if crashed else "")
          + (f"; {failed} processes failed" if failed else ""), flush=True)
    return 1 if differing or failed or crashed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="kernels to run")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--out", help="directory for the kernels that differed")
    parser.add_argument("--minutes", type=float, help="stop after this long")
    parser.add_argument("--opencl", action="store_true", help="OpenCL C kernels on PoCL")
    parser.add_argument("--opencl-launch", action="store_true",
                        help="OpenCL C kernels on PoCL, launch predicates on vs. off")
    parser.add_argument("--overflow", action="store_true",
                        help="OpenCL C kernels on PoCL whose int index overflows: none may "
                        "crash")
    parser.add_argument("--jobs", type=int, default=1, help="processes (seeds split)")
    parser.add_argument("--seed-file", help=argparse.SUPPRESS)   # (--jobs: the seed running)
    parser.add_argument("--platform", help="OpenCL platform whose name contains this "
                        "(C modes; default: PYOPENCL_CTX, else the first)")
    args = parser.parse_args(argv)
    if args.jobs > 1:
        return run_jobs(args)
    global _SEED_FILE
    _SEED_FILE = args.seed_file
    log = lambda *a: print(*a, flush=True)                               # noqa: E731
    faulthandler.enable()       # a crash in a driver prints where the Python code was
    if args.opencl or args.opencl_launch or args.overflow:
        result = (run_overflow if args.overflow else
                  run_opencl_launch if args.opencl_launch else run_opencl)(
            args.count, args.seed, args.out, args.minutes, log=log, platform=args.platform)
    else:
        result = run(args.count, args.seed, args.out, args.minutes, log=log)
    print(f"done: {result['kernels']} kernels (seeds {args.seed}..."
          f"{args.seed + result['kernels'] - 1}) in {result['seconds']:.0f} s, "
          f"{len(result['differing'])} differing: {result['differing'][:50]}" +
          (f"; {result['launches']} launches" if "launches" in result else "") +
          (f"; set apart (exits.py): {result['set_apart']}" if result.get("set_apart")
           else ""))
    return 1 if result["differing"] else 0


if __name__ == "__main__":
    sys.exit(main())
