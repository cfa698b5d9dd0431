"""python -m benchmarks: run the suite and write results/<date>-<gpu>.json and .md.

    python -m benchmarks                       # everything, H200 sizes
    python -m benchmarks --quick               # tiny sizes, a smoke run (works on the simulator)
    python -m benchmarks --only saxpy,nbody --modes unchecked,checked --reps 20
    python -m benchmarks --languages cupy,opencl   # the CUDA C and OpenCL C kernels only

Exit status 1 when any kernel in any mode failed to build, run or verify against NumPy.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from . import cases, languages, modes, sanitizer

DEFAULT_OUT = Path(__file__).resolve().parent / "results"


def _csv(values) -> list:
    return [v.strip() for chunk in values or [] for v in chunk.split(",") if v.strip()]


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="safekern benchmark suite: checked vs unchecked numba-cuda, CuPy (CUDA C) "
                    "and PyOpenCL (OpenCL C) kernels, sync-every-launch and compute-sanitizer "
                    "memcheck, host launch overhead and compile time. See docs/benchmarks.md.")
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes, 2 repetitions, short overhead runs: a smoke run that also "
                        "works on the CUDA simulator (NUMBA_ENABLE_CUDASIM=1); not a measurement")
    p.add_argument("--only", action="append", metavar="NAMES",
                   help="comma-separated kernels to run: a name runs in every selected "
                        "language that has it, LANGUAGE:NAME in that one (repeatable; default "
                        "all; see --list)")
    p.add_argument("--languages", action="append", metavar="LANGS",
                   help=f"comma-separated subset of {','.join(languages.NAMES)} (default: all; "
                        "a language whose library or device is missing is reported as "
                        "skipped)")
    p.add_argument("--modes", action="append", metavar="MODES",
                   help=f"comma-separated subset of {','.join(modes.ALL_MODE_NAMES)} "
                        "(default: all)")
    p.add_argument("--reps", type=int, help="timed repetitions per mode (default 15; quick 2)")
    p.add_argument("--warmup", type=int,
                   help="untimed repetitions per mode first (default 3; quick 0)")
    p.add_argument("--target-ms", type=float, default=20.0,
                   help="aimed-at length of one repetition, which sets the steps per "
                        "repetition from the unchecked step time (default 20)")
    p.add_argument("--out", default=str(DEFAULT_OUT), metavar="DIR",
                   help="directory for the report files (default benchmarks/results)")
    p.add_argument("--seed", type=int, default=1234, help="seed of the generated data")
    p.add_argument("--sanitizer", metavar="PATH", help="the compute-sanitizer executable")
    p.add_argument("--sanitizer-kernels", action="append", metavar="NAMES",
                   help=f"kernels run under memcheck (default {','.join(sanitizer.DEFAULT_CASES)})")
    p.add_argument("--sanitizer-reps", type=int, default=None,
                   help="timed steps under memcheck, after one warm-up (default 3; quick 1)")
    p.add_argument("--sanitizer-timeout", type=float, default=200.0,
                   help="seconds before the memcheck worker is stopped (default 200)")
    p.add_argument("--host-launches", type=int, default=None,
                   help="launches per batch for host time per launch (default 2000; quick 20)")
    p.add_argument("--host-batches", type=int, default=None,
                   help="batches for host time per launch (default 15; quick 3)")
    p.add_argument("--no-host", action="store_true", help="skip host time per launch")
    p.add_argument("--compile-reps", type=int, default=None,
                   help="fresh compiles per kernel and variant (default 3; quick 1; 0 skips)")
    p.add_argument("--list", action="store_true", help="list the kernels and modes and exit")
    p.add_argument("--worker", choices=["sanitizer"], help=argparse.SUPPRESS)
    p.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    args.language_names = _csv(args.languages) or list(languages.NAMES)
    try:
        args.selection = languages.select(_csv(args.only), args.language_names)
    except ValueError as err:
        p.error(str(err))
    if not args.selection:
        p.error("--only and --languages select no kernel")
    args.names = [n for lang, n in args.selection if lang == "numba"]    # the numba cases
    args.mode_names = _csv(args.modes) or list(modes.ALL_MODE_NAMES)
    unknown = [m for m in args.mode_names if m not in modes.ALL_MODE_NAMES]
    if unknown:
        p.error(f"--modes: unknown mode(s) {', '.join(unknown)}; "
                f"choose from {', '.join(modes.ALL_MODE_NAMES)}")
    args.sanitizer_names = _csv(args.sanitizer_kernels) or list(sanitizer.DEFAULT_CASES)
    unknown = [n for n in args.sanitizer_names if n not in cases.CASES]
    if unknown:
        p.error(f"--sanitizer-kernels: unknown kernel(s) {', '.join(unknown)}")
    quick = args.quick
    defaults = dict(reps=2 if quick else 15, warmup=0 if quick else 3,
                    sanitizer_reps=1 if quick else 3, host_launches=20 if quick else 2000,
                    host_batches=3 if quick else 15, compile_reps=1 if quick else 3)
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    for key in ("reps", "sanitizer_reps", "host_launches", "host_batches"):
        if getattr(args, key) < 1:
            p.error(f"--{key.replace('_', '-')} must be at least 1")
    if args.warmup < 0 or args.compile_reps < 0 or args.target_ms <= 0:
        p.error("--warmup and --compile-reps must be >= 0, --target-ms > 0")
    if args.worker and not args.worker_out:
        p.error("--worker needs --worker-out")
    return args


def _list() -> int:
    for lang in languages.NAMES:
        print(f"{languages.LABELS[lang]}:")
        for name in languages.case_names(lang):
            summary = cases.build(name, True).summary
            if lang != "numba":
                summary = f"{summary} ({'CUDA' if lang == 'cupy' else 'OpenCL'} C)"
            print(f"  {languages.case_id(lang, name):<22} {summary}")
    print()
    for mode in modes.MODES.values():
        print(f"{mode.name:<16} {mode.label}")
    print(f"{modes.SANITIZER:<16} compute-sanitizer --tool memcheck on the unchecked build")
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.list:
        return _list()
    from . import harness, overhead, report

    settings = harness.Settings(quick=args.quick, reps=args.reps, warmup=args.warmup,
                                target_ms=args.target_ms, seed=args.seed)
    if args.worker == "sanitizer":
        settings.reps = args.reps
        return sanitizer.worker_main(args.names, settings, args.worker_out)

    log = harness.stderr_log
    in_process = [modes.MODES[m] for m in modes.MODES if m in args.mode_names]
    run = {"schema": 1, "date": report.now_iso(),
           "command": "python -m benchmarks" + ("" if not argv else " " + shlex.join(argv)),
           "environment": report.environment(), "machine": report.machine_info(),
           "versions": report.versions(),
           "settings": {"quick": args.quick, "reps": args.reps, "warmup": args.warmup,
                        "target_ms": args.target_ms, "seed": args.seed,
                        "modes": args.mode_names, "languages": args.language_names,
                        "kernels": [languages.case_id(*pair) for pair in args.selection]},
           "modes": {m.name: m.label for m in in_process}, "phase_s": {}}
    log(f"safekern benchmarks on {run['machine'].get('gpu')}: {len(args.selection)} "
        f"kernel(s), languages {', '.join(args.language_names)}, "
        f"modes {', '.join(args.mode_names)}")

    t0 = time.perf_counter()
    run["cases"], run["languages"] = harness.run_selection(args.selection, in_process,
                                                           settings, log)
    run["phase_s"]["kernels"] = time.perf_counter() - t0
    _save(run, args, complete=False)

    # The phases after the kernels measure numba-cuda only.
    numba_ran = run["languages"].get("numba", {}).get("status") == "ok"
    if not numba_ran:
        args.names = []
    # Cheapest first: a run stopped by a time limit loses the memcheck phase, not the others.
    if not args.no_host and in_process and numba_ran:
        t0 = time.perf_counter()
        run["host_launch"] = overhead.host_launch(in_process, args.host_launches,
                                                  args.host_batches, log=log)
        run["phase_s"]["host_launch"] = time.perf_counter() - t0
        _save(run, args, complete=False)

    variants = [m for m in (modes.UNCHECKED, modes.CHECKED) if m in in_process]
    if args.compile_reps and len(variants) == 2 and args.names:
        t0 = time.perf_counter()
        run["compile"] = overhead.compile_times(args.names, args.compile_reps, args.seed, log=log)
        run["phase_s"]["compile"] = time.perf_counter() - t0
        _save(run, args, complete=False)

    if modes.SANITIZER in args.mode_names and numba_ran:
        t0 = time.perf_counter()
        names = [n for n in args.sanitizer_names if n in args.names]
        run["sanitizer"] = sanitizer.run(names, quick=args.quick, seed=args.seed,
                                         reps=args.sanitizer_reps, timeout=args.sanitizer_timeout,
                                         tool=args.sanitizer, log=log)
        sanitizer.attach_ratios(run["sanitizer"], run["cases"])
        run["phase_s"]["sanitizer"] = time.perf_counter() - t0
        log(f"sanitizer: {run['sanitizer']['status']}"
            + (f" ({run['sanitizer']['note']})" if run["sanitizer"].get("note") else ""))

    paths = _save(run, args, complete=True)
    _print_summary(run, paths)
    return 1 if run["summary"]["failures"] else 0


def _save(run, args, complete: bool) -> list:
    """Write the report; also after each phase, so a run stopped by a time limit leaves one."""
    from . import report

    run["complete"] = complete
    run["notes"] = _notes(run, args) + list(modes.notes)
    if not complete:
        run["notes"].append("incomplete: the run stopped before every phase had finished")
    run["summary"] = report.summarize(run)
    return report.write(run, args.out)


def _notes(run, args) -> list:
    notes = ["modes run in this one process, interleaved per repetition; each mode's "
             "SAFEKERN_* variables are set and safekern.config.reload() is called around its "
             "decoration and every repetition (compute-sanitizer runs in a subprocess)"]
    if run["machine"].get("simulator"):
        notes.append("CUDA simulator: repetitions timed with the host clock; no compile step")
    if args.quick:
        notes.append("--quick: tiny sizes and few repetitions, for testing the suite only")
    for lang, info in (run.get("languages") or {}).items():
        if info.get("status") == "skipped":
            notes.append(f"{languages.LABELS[lang]} skipped: {info['reason']}")
        elif info.get("note"):
            notes.append(f"{languages.LABELS[lang]} on {info.get('device')}: {info['note']}")
    return notes


def _print_summary(run, paths) -> None:
    s = run["summary"]
    print()
    for lang, per_mode in s["languages"].items():
        for mode, label in (("checked", "checked / unchecked"), ("sync", "sync every launch"),
                            ("sanitizer", "memcheck")):
            if mode in per_mode:
                x = per_mode[mode]
                print(f"{lang:<7}{label:<22} geomean {x['geomean']:.3f}  worst {x['worst']:.3f} "
                      f"({x['worst_kernel']})")
    for lang, info in run["languages"].items():
        if info["status"] == "skipped":
            print(f"{lang}: skipped: {info['reason']}")
    for goal in s["goals"]:
        if goal["met"] is not None:
            print(f"goal {goal['what']}: {goal['measured']:.3f} <= {goal['target']}: "
                  f"{'met' if goal['met'] else 'MISSED'}")
    for f in s["failures"]:
        print(f"FAILED {f['kernel']} / {f['mode']}: {f['status']}: "
              f"{(f['error'] or '').strip().splitlines()[0] if f['error'] else ''}")
    for path in paths:
        print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
