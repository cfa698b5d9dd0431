"""CuPy's own RawKernel/RawModule tests under safekern.cupy: per-test outcomes, plain vs safekern.

CuPy's `tests/cupy_tests/core_tests/test_raw.py` (of the CuPy version installed; MIT licence,
Copyright (c) Preferred Networks, Inc. and Preferred Infrastructure, Inc.) is not part of this
repository: it is taken at run time from a CuPy source tree into the git-ignored folder
`.cupy-src/` (MANIFEST below says which file of which version):

    python tools/cupy_suite.py --fetch https://github.com/cupy/cupy.git   # or a clone's path
    python tools/cupy_suite.py --table table.md --json out.json  # on a machine with a GPU

The file is run by pytest twice, each in a process of its own: plain, and with `cupy.RawKernel`
and `cupy.RawModule` themselves replaced by safekern's classes (this file is the pytest
plugin: `-p cupy_suite`), so every caller -- the tests, CuPy's testing helpers -- gets
safekern's; safekern's own internals use CuPy's compiler and `cupy._core.raw` directly. Cases
with `jitify=True` are left out (CuPy deprecates Jitify; its cold start takes minutes).
The exit status is 1 when a test passes plainly but not under safekern, apart from KNOWN_BUGS
(a real bug in the test) and OPEN (an incompatibility being fixed, with where).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC_DIR = os.path.join(ROOT, ".cupy-src")
MANIFEST = {
    "project": "CuPy (https://github.com/cupy/cupy)",
    "files": ["tests/cupy_tests/core_tests/test_raw.py", "cupy/_core/include/cupy/"],
    "version": "v14.2.0 (the CuPy on the GPU machine: 14.2)",
    "licence": "MIT, Copyright (c) 2015 Preferred Infrastructure, Inc.; "
               "Copyright (c) 2015 Preferred Networks, Inc.",
}
TEST_FILE = "test_raw.py"
MODE_ENV = "SAFEKERN_CUPY_SUITE_MODE"
OUT_ENV = "SAFEKERN_CUPY_SUITE_OUT"

#: Tests of CuPy with a real bug that safekern reports (test id -> why, with the line).
KNOWN_BUGS: dict = {}

#: Incompatibilities still open, each with where it is being fixed.
OPEN: dict = {}

#: Tests that fail plainly on the machine the suite runs on (noted in the table).
PLAIN_FAILS = {"test_context_switch_": "plain too: needs 2 GPUs (cudaErrorInvalidDevice on one)"}

PASSED = ("pass", "skip")


# -- the pytest plugin (in the child) ------------------------------------------------------------

def install_safekern_classes() -> None:
    """`cupy.RawKernel` and `cupy.RawModule` become safekern's for every caller."""
    import cupy

    import safekern.cupy as skcp

    cupy.RawKernel = skcp.RawKernel
    cupy.RawModule = skcp.RawModule


_results: dict = {}


def pytest_configure(config):
    if os.environ.get(MODE_ENV) == "safekern":
        install_safekern_classes()


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        (dropped if params.get("jitify") is True else kept).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=dropped)


def pytest_runtest_logreport(report):
    name = report.nodeid.split("::", 1)[-1]
    entry = _results.setdefault(name, {"outcome": "pass", "detail": ""})
    if report.skipped:
        if entry["outcome"] == "pass":
            reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else ""
            entry.update(outcome="skip", detail=str(reason)[:300])
    elif report.failed:
        text = str(report.longrepr)
        lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
        detail = " ".join(ln[1:].strip() for ln in lines[:4]) or text[-400:]
        entry.update(outcome="fail" if report.when == "call" else "error",
                     detail=detail[:600])


def pytest_sessionfinish(session):
    out = os.environ.get(OUT_ENV)
    if out:
        with open(out, "w") as f:
            json.dump(_results, f, indent=1)


# -- the runner -----------------------------------------------------------------------------------

def fetch(repo: str, tag: str) -> None:
    """Copy test_raw.py and CuPy's headers of `tag` from a CuPy git repository (a path, or a
    URL: cloned shallowly, only those paths) or a source tree into .cupy-src/."""
    os.makedirs(os.path.join(SRC_DIR, "include"), exist_ok=True)
    if "://" in repo:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", "--depth",
                            "1", "--branch", tag,
                            "--filter=blob:none", "--sparse", repo, tmp], check=True)
            subprocess.run(["git", "-C", tmp, "sparse-checkout", "set", "--no-cone",
                            "/" + MANIFEST["files"][0], "/" + MANIFEST["files"][1]],
                           check=True)
            fetch(tmp, tag)
        return
    if os.path.isdir(os.path.join(repo, "tests")):          # a source tree
        import shutil

        shutil.copy(os.path.join(repo, MANIFEST["files"][0]), os.path.join(SRC_DIR, TEST_FILE))
        shutil.copytree(os.path.join(repo, "cupy/_core/include/cupy"),
                        os.path.join(SRC_DIR, "include", "cupy"), dirs_exist_ok=True,
                        symlinks=True)     # submodules (CCCL, ...) are links there
    else:                                                    # a (bare) git repository
        git = ["git", "--git-dir", repo]
        text = subprocess.check_output(git + ["show", f"{tag}:{MANIFEST['files'][0]}"])
        with open(os.path.join(SRC_DIR, TEST_FILE), "wb") as f:
            f.write(text)
        archive = subprocess.check_output(git + ["archive", tag, "cupy/_core/include/cupy"])
        subprocess.run(["tar", "-x", "--strip-components=3", "-C",
                        os.path.join(SRC_DIR, "include")], input=archive, check=True)
    with open(os.path.join(SRC_DIR, "MANIFEST.json"), "w") as f:
        json.dump({**MANIFEST, "version": tag}, f, indent=1)


def run_mode(mode: str, workdir: str, timeout: float, select=()) -> subprocess.Popen:
    out = os.path.join(workdir, f"{mode}.json")
    env = dict(os.environ, **{MODE_ENV: mode, OUT_ENV: out})
    env["PYTHONPATH"] = os.pathsep.join([HERE, ROOT, env.get("PYTHONPATH", "")])
    # CuPy's kernel cache of its own per mode: one run's cache does not serve the other.
    env["CUPY_CACHE_DIR"] = os.path.join(workdir, f"cupy-cache-{mode}")
    env["SAFEKERN_CACHE"] = os.path.join(workdir, f"safekern-cache-{mode}")
    cmd = [sys.executable, "-m", "pytest", "-p", "cupy_suite", "-p", "no:cacheprovider",
           "-q", "-rN", "--tb=short", "-o", "addopts=", "-W", "ignore::pytest.PytestUnknownMarkWarning",
           os.path.join(SRC_DIR, TEST_FILE), *select]
    log = open(os.path.join(workdir, f"{mode}.log"), "w")
    return subprocess.Popen(cmd, env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)


def _note(test: str) -> str:
    """KNOWN_BUGS / OPEN keys name a test function ("test_x") or a parametrised case
    ("test_x[" + id): they match the test id's function part."""
    function = test.rsplit("::", 1)[-1]
    for key, why in KNOWN_BUGS.items():
        if function.startswith(key):
            return "real bug in the test: " + why
    for key, why in OPEN.items():
        if function.startswith(key):
            return "open: " + why
    return ""


def compare(plain: dict, checked: dict) -> list[dict]:
    rows = []
    for test in sorted(set(plain) | set(checked)):
        p = plain.get(test, {"outcome": "not run", "detail": ""})
        c = checked.get(test, {"outcome": "not run", "detail": ""})
        regression = p["outcome"] == "pass" and c["outcome"] not in PASSED
        note = _note(test) if regression else ""
        if p["outcome"] not in PASSED:
            function = test.rsplit("::", 1)[-1]
            note = next((why for key, why in PLAIN_FAILS.items() if function.startswith(key)),
                        "")
        rows.append({"test": test, "plain": p["outcome"], "safekern": c["outcome"],
                     "detail": c["detail"] if regression or c["outcome"] != p["outcome"] else "",
                     "regression": regression, "note": note})
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| test | plain CuPy | safekern.cupy | note |", "|---|---|---|---|"]
    for r in rows:
        note = (r["note"] or (r["detail"][:160] if r["regression"] else "")).replace("|", "\\|")
        lines.append(f"| `{r['test']}` | {r['plain']} | {r['safekern']} | {note} |")
    return "\n".join(lines) + "\n"


def summary(rows: list[dict]) -> str:
    plain_pass = sum(r["plain"] == "pass" for r in rows)
    regressions = [r for r in rows if r["regression"]]
    excused = [r for r in regressions if r["note"]]
    return (f"{len(rows)} tests; {plain_pass} pass plainly; under safekern "
            f"{plain_pass - len(regressions)} of them pass, {len(excused)} listed "
            f"(KNOWN_BUGS/OPEN), {len(regressions) - len(excused)} unexplained")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fetch", metavar="CUPY_REPO", help="copy CuPy's test and headers here")
    ap.add_argument("--tag", default="v14.2.0")
    ap.add_argument("--modes", nargs="+", default=["plain", "safekern"])
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--timeout", type=float, default=400)
    ap.add_argument("--table", help="write the markdown table here")
    ap.add_argument("--json", help="write every outcome here")
    ap.add_argument("select", nargs="*", help="pytest -k expression and similar, passed on")
    args = ap.parse_args(argv)
    if args.fetch:
        fetch(args.fetch, args.tag)
        return 0
    if not os.path.exists(os.path.join(SRC_DIR, TEST_FILE)):
        print(f"no {TEST_FILE} in {SRC_DIR}: run --fetch first", file=sys.stderr)
        return 2
    import tempfile

    workdir = args.workdir or tempfile.mkdtemp(prefix="cupy-suite-")
    os.makedirs(workdir, exist_ok=True)
    start = time.time()
    procs = {m: run_mode(m, workdir, args.timeout, args.select) for m in args.modes}
    for mode, proc in procs.items():
        try:
            proc.wait(timeout=max(1, args.timeout - (time.time() - start)))
        except subprocess.TimeoutExpired:
            proc.kill()
            print(f"{mode}: timed out after {args.timeout:.0f} s", file=sys.stderr)
    results = {}
    for mode in args.modes:
        path = os.path.join(workdir, f"{mode}.json")
        results[mode] = json.load(open(path)) if os.path.exists(path) else {}
        print(f"{mode}: {len(results[mode])} tests; log {workdir}/{mode}.log")
    if set(args.modes) != {"plain", "safekern"}:
        return 0
    rows = compare(results["plain"], results["safekern"])
    text = summary(rows)
    print(text)
    for r in rows:
        if r["regression"]:
            print(f"  {r['test']}: {r['safekern']}: {r['note'] or r['detail'][:400]}")
    if args.table:
        with open(args.table, "w") as f:
            f.write(f"{text}\n\n" + table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "summary": text, "seconds": time.time() - start}, f,
                      indent=1)
    unexplained = [r for r in rows if r["regression"] and not r["note"]]
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
