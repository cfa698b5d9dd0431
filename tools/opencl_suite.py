"""PyOpenCL's own tests under safekern.opencl: per-test outcomes, plain PyOpenCL vs safekern.

The tests are PyOpenCL 2026.1.4's own (MIT), from the `test/` folder of its sdist: not kept in
this repository, they are fetched at run time (SOURCE: the sdist's PyPI address and sha256)
into .pyopencl-tests/<version>/ (git-ignored; `--tests-dir` names another folder, e.g. one a
machine without network access was given). Each test file runs in a process of its own, once
per mode:
- plain: PyOpenCL as it is;
- user:  every `cl.Program(...)` written in the test files is safekern.opencl.Program (the
         user's swap; PyOpenCL's library keeps its own programs);
- all:   safekern.opencl.install(): every program built from source is checked, PyOpenCL's
         library kernels (pyopencl.array, elementwise, reduction, scan, clrandom) included; a
         program safekern cannot check yet runs plain with an UncheckedWarning (counted).
The outcomes of the user and all modes are compared with plain's test by test.

    python tools/opencl_suite.py                           # every file, every mode
    python tools/opencl_suite.py --ci                      # the CI selection, plain and user
    python tools/opencl_suite.py test_wrapper --modes plain,all --platform nvidia
    python tools/opencl_suite.py test_array -k "sum or take" --table t.md --json r.json

`--platform` picks the OpenCL platform (PYOPENCL_TEST, e.g. "portable" for PoCL, "nvidia").
The exit status is 1 when a test passes plainly but not under safekern, apart from the real
bugs in PyOpenCL's tests listed in KNOWN_BUGS (docs/compatibility.md gives them).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
#: the PyOpenCL version whose tests run, and where they come from (its sdist, found by name on
#: the package index pip is set up with)
VERSION = "2026.1.4"
SOURCE = {
    "project": "pyopencl", "version": VERSION, "licence": "MIT (the sdist's LICENSE)",
    "sdist": "pyopencl-2026.1.4.tar.gz",
    "sha256": "6cb9544a004609061e86873fe36500da6c2101042e9c7b9c3b804a29a12b98bf",
    "folder": "pyopencl-2026.1.4/test/",
}
DEFAULT_TESTS = os.path.join(ROOT, ".pyopencl-tests", VERSION)
TESTS = os.environ.get("SAFEKERN_PYOPENCL_TESTS", DEFAULT_TESTS)
FILES = ("test_wrapper", "test_enqueue_copy", "test_arrays_in_structs", "test_clrandom",
         "test_array", "test_algorithm", "test_clmath")
MODES = ("plain", "user", "all")

#: Tests of PyOpenCL with a real bug safekern reports (test id -> the bug, with its line).
KNOWN_BUGS: dict = {}

#: The CI selection: the files whose tests write programs of their own (mode "user" routes
#: them), with the -k expression of each (None: the whole file).
CI_SELECTION = {"test_wrapper": None, "test_enqueue_copy": None,
                "test_arrays_in_structs": None, "test_clrandom": None,
                "test_clmath": "complex_muladd"}

PASSED = ("pass", "skip", "xfail")


# -- the tests ---------------------------------------------------------------------------------

def have_tests(folder: str) -> bool:
    return all(os.path.exists(os.path.join(folder, f + ".py")) for f in FILES)


def _sdist_bytes(timeout: float) -> bytes:
    """The sdist, found by project name and version on the index pip is configured with
    (`pip download` cannot fetch it: it would build PyOpenCL to read its metadata)."""
    try:
        from pip._internal.configuration import Configuration
        from pip._internal.index.collector import LinkCollector
        from pip._internal.index.package_finder import PackageFinder
        from pip._internal.models.index import PyPI
        from pip._internal.models.search_scope import SearchScope
        from pip._internal.models.selection_prefs import SelectionPreferences
        from pip._internal.network.session import PipSession
    except ImportError as err:
        raise OSError(f"pip's package finder is not importable here ({err})") from None
    config = Configuration(isolated=False)
    try:
        config.load()
        configured = dict(config.items())
    except Exception:                # noqa: BLE001 - no readable pip configuration
        configured = {}
    index = (os.environ.get("PIP_INDEX_URL") or configured.get("global.index-url") or
             PyPI.simple_url)
    session = PipSession()
    session.timeout = timeout
    finder = PackageFinder.create(
        LinkCollector(session, SearchScope.create(find_links=[], index_urls=[index],
                                                  no_index=False)),
        SelectionPreferences(allow_yanked=False))
    links = [c.link for c in finder.find_all_candidates(SOURCE["project"])
             if c.link.filename == SOURCE["sdist"]]
    if not links:
        raise OSError(f"{SOURCE['sdist']} is not on the package index ({index})")
    response = session.get(links[0].url.split("#")[0], timeout=timeout)
    response.raise_for_status()
    return response.content


def fetch_tests(folder: str = DEFAULT_TESTS, timeout: float = 60) -> str:
    """PyOpenCL's tests in `folder`, downloaded (and checked against SOURCE's sha256) unless
    they are there already. Raises OSError when they cannot be had."""
    import hashlib
    import io
    import tarfile

    if have_tests(folder):
        return folder
    data = _sdist_bytes(timeout)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE["sha256"]:
        raise OSError(f"{SOURCE['sdist']}: sha256 {digest}, expected {SOURCE['sha256']}")
    part = folder + ".part"
    os.makedirs(part, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = member.name
            if member.isfile() and (name.startswith(SOURCE["folder"]) or
                                    name == SOURCE["folder"].split("/")[0] + "/LICENSE"):
                target = os.path.join(part, os.path.basename(name))
                with tar.extractfile(member) as src, open(target, "wb") as dst:
                    dst.write(src.read())
    if os.path.exists(folder):          # an incomplete folder of an earlier run
        import shutil

        shutil.rmtree(folder)
    os.replace(part, folder)
    if not have_tests(folder):
        raise OSError(f"{SOURCE['sdist']} holds no {', '.join(FILES)} under {SOURCE['folder']}")
    return folder


# -- the child: one file, one mode ---------------------------------------------------------------

def _route_user_programs(test_modules) -> None:
    """`cl.Program(...)` called from the test modules makes a safekern.opencl.Program."""
    import pyopencl as cl

    import safekern.opencl as skcl

    original = cl.Program

    class _Routed(type):
        def __call__(cls, *args, **kwargs):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller in test_modules:
                return skcl.Program(*args, **kwargs)
            return original(*args, **kwargs)

        def __instancecheck__(cls, obj):
            return isinstance(obj, original)

    class Program(original, metaclass=_Routed):
        pass

    cl.Program = Program


class _Recorder:
    """A pytest plugin: each test's outcome."""

    def __init__(self):
        self.outcomes: dict = {}

    def pytest_runtest_logreport(self, report):
        tid = _short_id(report.nodeid)
        if report.when == "call" or (report.when == "setup" and not report.passed) or \
                (report.when == "teardown" and report.failed):
            if hasattr(report, "wasxfail"):
                outcome = "xfail" if report.skipped else "xpass"
            elif report.skipped:
                outcome = "skip"
            elif report.passed:
                outcome = "pass"
            else:
                outcome = "error" if report.when != "call" else "fail"
            if self.outcomes.get(tid, {}).get("outcome") in ("fail", "error"):
                return
            detail = ""
            if report.failed:
                detail = _short(str(report.longrepr))
            elif report.skipped and isinstance(report.longrepr, tuple):
                detail = str(report.longrepr[2])[:200]
            self.outcomes[tid] = {"outcome": outcome, "detail": detail,
                                  "seconds": round(report.duration, 3)}

    def pytest_runtest_teardown(self, item, nextitem):
        # Each of PyOpenCL's tests makes a context of its own, which PyOpenCL's kernel caches
        # (first-argument memoisation) keep for good: on NVIDIA's OpenCL, six test processes on
        # one GPU held so many that later contexts failed with OUT_OF_HOST_MEMORY -- in plain
        # PyOpenCL as often as under safekern (an H100, 2026-11-27). Released after every test,
        # in every mode alike (safekern's own failure buffers let go of dropped contexts).
        import gc

        from pyopencl.tools import clear_first_arg_caches

        clear_first_arg_caches()
        gc.collect()


def _short_id(nodeid: str) -> str:
    """A test id without the device in it (PyOpenCL's parameters name the device)."""
    import re

    return re.sub(r"<context factory for <pyopencl\.Device [^>]*>>", "ctx", nodeid)


def _short(text: str, limit: int = 600) -> str:
    """The error lines of a pytest failure (`E   ...`), or its last lines."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errors = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    where = [ln for ln in lines if ln.startswith(("test_", "/")) and ":" in ln]
    out = " | ".join(errors[:6]) if errors else " | ".join(lines[-3:])
    if where:
        out += f" [{where[-1][:160]}]"
    return out[:limit]


def child_main(name: str, mode: str, select: str | None, json_out: str) -> int:
    import pytest

    t0 = time.perf_counter()
    unchecked: list = []
    if mode == "user":
        _route_user_programs({name})
    elif mode == "all":
        import safekern.opencl as skcl
        from safekern.backends.opencl import hooks

        skcl.install()
        # Count the programs safekern could not check (they run plain).
        import pyopencl as cl

        plain_build = cl.Program._plain_build

        def counted(self, err, *args):
            unchecked.append({"program": self.filename, "why": str(err).splitlines()[0][:300]})
            return plain_build(self, err, *args)

        cl.Program._plain_build = counted
        assert hooks.installed()
    recorder = _Recorder()

    def write(status):
        data = {"file": name, "mode": mode, "status": status,
                "outcomes": recorder.outcomes, "unchecked": unchecked,
                "seconds": round(time.perf_counter() - t0, 2)}
        with open(json_out, "w") as f:
            json.dump(data, f)

    def stopped(signum, frame):
        # The parent's time limit: what ran so far is kept; the rest is "not run".
        write(f"stopped at the time limit after {len(recorder.outcomes)} tests")
        os._exit(3)

    import signal

    signal.signal(signal.SIGTERM, stopped)
    # PyOpenCL's tests with no configuration of this project's (its pyproject.toml, an
    # ancestor of the files, would give them its per-test timeout): none but pytest's.
    args = [os.path.join(TESTS, name + ".py"), "-q", "-p", "no:cacheprovider",
            "-c", os.devnull, "--rootdir", TESTS, "-W", "ignore::DeprecationWarning"]
    if select:
        args += ["-k", select]
    rc = pytest.main(args, plugins=[recorder])
    write(f"pytest exit {int(rc)}")
    return 0


# -- the parent -------------------------------------------------------------------------------

def child_env(platform: str, cache_dir: str) -> dict:
    env = dict(os.environ)
    env["SAFEKERN_PYOPENCL_TESTS"] = TESTS
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    env["PYOPENCL_TEST"] = platform
    env.setdefault("PYTHONUNBUFFERED", "1")
    env["SAFEKERN_CACHE"] = os.path.join(cache_dir, "suite.cache")   # never the user's
    env.pop("SAFEKERN_OPENCL_ALL", None)
    return env


def run_child(name, mode, select, env, timeout, workdir) -> dict:
    out = os.path.join(workdir, f"{name}.{mode}.json")
    log = os.path.join(workdir, f"{name}.{mode}.log")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--mode", mode,
           "--json-out", out] + (["-k", select] if select else [])
    t0 = time.perf_counter()
    with open(log, "wb") as logf:
        proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                cwd=workdir, start_new_session=True)
        try:
            rc = proc.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            import signal

            os.killpg(proc.pid, signal.SIGTERM)     # the child writes what it has
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            rc = "timeout"
    data = None
    if os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    if data is None:
        with open(log, "rb") as f:
            tail = f.read()[-1500:].decode(errors="replace")
        why = f"timed out after {timeout:.0f} s" if rc == "timeout" else f"exit status {rc}"
        data = {"file": name, "mode": mode, "status": why, "unchecked": [],
                "outcomes": {f"{name}.py::<file>": {"outcome": "error",
                                                    "detail": f"{why}: {_short(tail)}"}}}
    data["wall"] = round(time.perf_counter() - t0, 2)
    return data


def compare(plain: dict, checked: dict) -> list[dict]:
    """Tests that pass plainly but not under safekern."""
    out = []
    for tid, p in sorted(plain["outcomes"].items()):
        if p["outcome"] not in PASSED:
            continue
        s = checked["outcomes"].get(tid, {"outcome": "not run", "detail": "not run: "
                                          + checked.get("status", "")})
        if s["outcome"] not in PASSED:
            out.append({"test": tid, "outcome": s["outcome"], "detail": s.get("detail", ""),
                        "known": KNOWN_BUGS.get(tid), "excused": tid in KNOWN_BUGS})
    return out


def _count(data, outcomes) -> int:
    return sum(1 for v in data["outcomes"].values() if v["outcome"] in outcomes)


def table(results: dict, modes) -> str:
    checked_modes = [m for m in modes if m != "plain"]
    head = "| file | tests | pass (plain) | skip | plain failures |"
    rule = "| --- | ---: | ---: | ---: | ---: |"
    for m in checked_modes:
        head += f" {m}: regressions | {m}: why |" + (" all: unchecked programs |"
                                                     if m == "all" else "")
        rule += " ---: | --- |" + (" ---: |" if m == "all" else "")
    lines = [head, rule]
    for name in sorted(results):
        r = results[name]
        plain = r.get("plain") or next(iter(r.values()))
        row = (f"| {name} | {len(plain['outcomes'])} | {_count(plain, ('pass', 'xfail'))} | "
               f"{_count(plain, ('skip',))} | "
               f"{_count(plain, ('fail', 'error', 'xpass'))} |")
        for m in checked_modes:
            reg = r.get(f"regressions_{m}", [])
            why = "; ".join(f"{x['test'].split('::')[-1]}: "
                            f"{x['known'] or x['detail'][:140]}" for x in reg)
            row += f" {len(reg)} | {why} |"
            if m == "all":
                row += f" {len(r.get('all', {}).get('unchecked', []))} |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    global TESTS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help=f"test files (default: {', '.join(FILES)})")
    ap.add_argument("-k", dest="select", help="pytest -k expression for every file")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--platform", default="portable",
                    help="PYOPENCL_TEST: the platform (and device) the tests use")
    ap.add_argument("--ci", action="store_true", help="CI_SELECTION, modes plain and user")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per file and mode")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds for the whole run (0: none); later jobs are not run")
    ap.add_argument("--table", help="write the markdown table here")
    ap.add_argument("--json", help="write every outcome here")
    ap.add_argument("--keep", action="store_true", help="keep the children's logs")
    ap.add_argument("--tests-dir", default=None,
                    help="folder of PyOpenCL's test files (fetched there when missing)")
    ap.add_argument("--fetch-only", action="store_true",
                    help="fetch the tests into --tests-dir and stop")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="no run: the table of the --json files of runs split by file, -k "
                         "selection or mode (run side by side on a machine with many cores)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--json-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    TESTS = os.path.abspath(args.tests_dir or TESTS)
    if args.child:
        return child_main(args.child, args.mode, args.select, args.json_out)
    if args.merge:
        platform, results = merge_runs(args.merge)
        modes = [m for m in MODES if any(m in r for r in results.values())]
        return report(results, modes, platform, args, time.perf_counter(), None)
    fetch_tests(TESTS)
    if args.fetch_only:
        print(f"PyOpenCL {VERSION}'s tests: {TESTS}")
        return 0

    if args.ci:
        selection = dict(CI_SELECTION)
        modes = ["plain", "user"] if args.modes == ",".join(MODES) else args.modes.split(",")
    else:
        selection = {f: args.select for f in (args.files or FILES)}
        modes = [m for m in args.modes.split(",") if m]
    import pyopencl

    if pyopencl.VERSION_TEXT != VERSION:
        print(f"warning: PyOpenCL {pyopencl.VERSION_TEXT} is installed; these are PyOpenCL "
              f"{VERSION}'s tests", file=sys.stderr)
    workdir = tempfile.mkdtemp(prefix="opencl-suite-")
    env = child_env(args.platform, workdir)
    t0 = time.perf_counter()
    deadline = t0 + args.deadline if args.deadline else None
    results: dict = {name: {} for name in selection}
    for name, select in selection.items():
        for mode in modes:
            left = args.timeout if deadline is None else min(args.timeout,
                                                             deadline - time.perf_counter())
            if left <= 1:
                data = {"file": name, "mode": mode, "status": "not run", "wall": 0,
                        "unchecked": [], "outcomes": {}}
            else:
                data = run_child(name, mode, select, env, left, workdir)
            results[name][mode] = data
            print(f"[{time.perf_counter() - t0:6.0f}s] {name} {mode}: {data['status']} "
                  f"({len(data['outcomes'])} tests, {_count(data, ('pass',))} pass, "
                  f"{len(data.get('unchecked', []))} unchecked programs, {data['wall']} s)",
                  flush=True)
    return report(results, modes, args.platform, args, t0, workdir)


def merge_runs(paths) -> tuple[str, dict]:
    """(platform, results) of several --json files: the outcomes of one file and mode from
    runs with different -k selections put together."""
    platform, results = None, {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        platform = platform or data["platform"]
        for name, modes in data["results"].items():
            for mode, run in modes.items():
                if mode.startswith("regressions_"):
                    continue
                into = results.setdefault(name, {}).setdefault(
                    mode, {"file": name, "mode": mode, "status": "", "outcomes": {},
                           "unchecked": [], "wall": 0})
                into["outcomes"].update(run["outcomes"])
                into["unchecked"] += run.get("unchecked", [])
                into["wall"] += run.get("wall", 0)
                into["status"] = "; ".join(x for x in (into["status"], run["status"]) if x)
    return platform, results


def report(results, modes, platform, args, t0, workdir) -> int:
    """Print (and write) the table and the regressions; 1 when one is not a known bug."""
    regressions = []
    for name, r in results.items():
        for mode in modes:
            if mode != "plain" and "plain" in r and mode in r:
                r[f"regressions_{mode}"] = compare(r["plain"], r[mode])
                regressions += [dict(x, mode=mode) for x in r[f"regressions_{mode}"]]
    text = table(results, modes)
    header = (f"PyOpenCL 2026.1.4 tests, platform {platform!r}, modes {', '.join(modes)}, "
              f"{time.perf_counter() - t0:.0f} s\n\n")
    print(header + text)
    if args.table:
        with open(args.table, "w") as f:
            f.write(header + text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"platform": platform, "results": results}, f, indent=1)
    if args.keep:
        print(f"logs: {workdir}")
    elif workdir:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    unexpected = [r for r in regressions if not r["excused"]]
    for r in unexpected:
        print(f"REGRESSION [{r['mode']}] {r['test']}: {r['outcome']}: {r['detail']}")
    print(f"{len(unexpected)} regressions, {len(regressions) - len(unexpected)} known bugs")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
