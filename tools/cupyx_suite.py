"""CuPy's tests of cupyx with every cupyx RawKernel/RawModule made by safekern: plain vs safekern.

cupyx (CuPy's scipy.signal, interpolate, ndimage, spatial, sparse and cupyx.signal) builds its
CUDA C kernels with `cupy.RawKernel`, `cupy.RawModule` and `cupy._core.RawModule`. Their tests
(CuPy's `tests/cupyx_tests/...` of the installed version; MIT licence, Copyright (c) Preferred
Networks, Inc. and Preferred Infrastructure, Inc.) are not part of this repository: `--fetch`
copies them into the git-ignored `.cupy-src/cupyx-tests/` (MANIFEST says which):

    python tools/cupyx_suite.py --fetch /path/to/cupy.git --tag v14.2.0
    python tools/cupyx_suite.py --shards 6 --timeout 280 --json out.json   # on the GPU machine

The selected test files (those whose code paths build RawKernel/RawModule) are run by pytest in
both modes, each split into shards run side by side: plain, and with the four names above
replaced by safekern's classes before cupyx is imported (this file is the pytest plugin:
`-p cupyx_suite`), so every cupyx caller gets safekern's. CuPy's own subsampling
(CUPY_TEST_RANDOM_SUBSAMPLE, one seed for both modes) keeps the run within a GPU call. Every
source safekern is given is recorded (`capture-*.json`: the key, options and name expressions
tools/extract_cupyx_corpus.py uses), so the corpus can take the ones its static extraction
misses (`extract_cupyx_corpus.py --captured`). Exit status 1 when a test passes plainly but not
under safekern, apart from KNOWN (a real bug, with where).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC_DIR = os.path.join(ROOT, ".cupy-src", "cupyx-tests")
TESTS = "tests/cupyx_tests"
#: The test files whose code paths build cupyx's RawKernel/RawModule sources.
TEST_FILES = [f"scipy_tests/signal_tests/test_{n}.py" for n in (
    "iir_utils", "signaltools", "bsplines", "splines", "upfirdn", "resample", "peak_finding",
    "waveforms", "max_len_seq", "spectral")] + \
    [f"scipy_tests/interpolate_tests/test_{n}.py" for n in (
        "bspline", "bspline2", "interpnd", "ndbspline", "ppoly", "polyint", "ndgriddata",
        "rgi")] + \
    [f"scipy_tests/ndimage_tests/test_{n}.py" for n in (
        "filters", "interpolation", "distance_transform", "morphology")] + \
    [f"scipy_tests/spatial_tests/test_{n}.py" for n in ("kdtree", "delaunay")] + \
    [f"scipy_tests/sparse_tests/test_{n}.py" for n in ("csr", "csc")] + \
    ["signal_tests/filtering_tests/test_filtering.py",
     "signal_tests/radartools_tests/test_radartools.py"]
MANIFEST = {
    "project": "CuPy (https://github.com/cupy/cupy)",
    "files": ["tests/conftest.py", f"{TESTS}/__init__.py", f"{TESTS}/scipy_tests/",
              f"{TESTS}/signal_tests/"],
    "licence": "MIT, Copyright (c) 2015 Preferred Infrastructure, Inc.; "
               "Copyright (c) 2015 Preferred Networks, Inc.",
}
MODE_ENV, OUT_ENV, CAPTURE_ENV = ("SAFEKERN_CUPYX_SUITE_MODE", "SAFEKERN_CUPYX_SUITE_OUT",
                                  "SAFEKERN_CUPYX_SUITE_CAPTURE")
SEED = "20261126"

_IIR = ("cupyx/scipy/signal/_iir_utils.py:127 and :338 (v14.2.0): first_pass_iir and "
        "first_pass_iir_sos store the carries of a thread whose position is past the signal's "
        "end (the loop left by `break` at pos + m*group_num >= n) and read group_start[pos] "
        "past the array; BoundsError index 123, size 120 for n=120, block 32, order 5 "
        "(docs/compatibility.md, 'A bug of cupyx')")
_KDTREE = ("cupyx/scipy/spatial/_kdtree_utils.py:415 and :605 (v14.2.0): compute_knn and "
           "compute_query_ball, periodic branch, compute the distance to the close child and "
           "its bounds without asking whether that child exists (the far child's are guarded "
           "by cur_far_child < n): tree[200] of 200 for 100 points in 2-D, at every periodic "
           "query (docs/compatibility.md, 'the periodic k-d tree')")
#: Tests that fail under safekern for a real bug of CuPy's: (test id prefix, parameter ids
#: of the failing cases; "" for every case) -> why, with where.
KNOWN: dict = {
    ("signal_tests/test_iir_utils.py::TestIIRUtils::test_order",
     ("[5-120]", "[5-250]", "[120-5]", "[250-5]")): _IIR,
    ("spatial_tests/test_kdtree.py::TestPeriodic::test_kdtree_", ("",)): _KDTREE,
}

PASSED = ("pass", "skip")


# -- the pytest plugin (in the child) ------------------------------------------------------------

_where = ["import"]
_captured: dict = {}


def _record(code, options, name_expressions=None, kernel=None) -> None:
    """As tools/extract_cupyx_corpus.py keys a source: (code, options)."""
    if not isinstance(code, str):
        return
    opts = [str(o) for o in (options or ())]
    key = hashlib.sha1((code + "\0" + "\0".join(opts)).encode()).hexdigest()[:12]
    rec = _captured.setdefault(key, {"source": code, "options": opts, "name_expressions": [],
                                     "kernels": [], "what": _where[0]})
    for n in name_expressions or ():
        if str(n) not in rec["name_expressions"]:
            rec["name_expressions"].append(str(n))
    if kernel and kernel not in rec["kernels"]:
        rec["kernels"].append(kernel)


def install_safekern_classes() -> None:
    """cupy.RawKernel / RawModule and cupy._core's become safekern's for every caller, each
    source recorded as it is given."""
    import cupy
    import cupy._core

    import safekern.cupy as skcp

    kernel_init, module_init = skcp.RawKernel.__init__, skcp.RawModule.__init__

    def recording_kernel(self, code, name, options=(), *a, _program=None, **k):
        if _program is None:
            _record(code, options, None, name)
        kernel_init(self, code, name, options, *a, _program=_program, **k)

    def recording_module(self, *, code=None, options=(), name_expressions=None, **k):
        _record(code, options, name_expressions)
        module_init(self, code=code, options=options, name_expressions=name_expressions, **k)

    skcp.RawKernel.__init__, skcp.RawModule.__init__ = recording_kernel, recording_module
    for mod in (cupy, cupy._core):
        mod.RawKernel, mod.RawModule = skcp.RawKernel, skcp.RawModule


def pytest_configure(config):
    if os.environ.get(MODE_ENV) == "safekern":
        install_safekern_classes()


def pytest_runtest_setup(item):
    _where[0] = item.nodeid


def pytest_runtest_logreport(report):
    out = os.environ.get(OUT_ENV)
    if not out or (report.when != "call" and not report.failed and not report.skipped):
        return
    if report.skipped:
        outcome, detail = "skip", ""
    elif report.failed:
        lines = [ln for ln in str(report.longrepr).splitlines() if ln.startswith("E ")]
        outcome = "fail" if report.when == "call" else "error"
        # (The E lines, then the end of the report: CuPy's testing helpers wrap the error one
        # side raised -- "Only cupy raises error" -- whose own traceback comes last.)
        detail = " ".join(ln[1:].strip() for ln in lines[:12]) + " | " + \
            str(report.longrepr)[-1500:]
    else:
        outcome, detail = "pass", ""
    with open(out, "a") as f:        # line by line: a shard cut off by the timeout still counts
        f.write(json.dumps({"test": report.nodeid, "outcome": outcome,
                            "detail": detail[:3000]}) + "\n")


def pytest_collectreport(report):
    """A test module that fails to import (a source refused at import time, say) counts as
    one failed test of its own name."""
    out = os.environ.get(OUT_ENV)
    if out and report.failed:
        with open(out, "a") as f:
            f.write(json.dumps({"test": report.nodeid + "::<import>", "outcome": "error",
                                "detail": str(report.longrepr)[-600:]}) + "\n")


def pytest_sessionfinish(session):
    path = os.environ.get(CAPTURE_ENV)
    if path and _captured:
        with open(path, "w") as f:
            json.dump(_captured, f, indent=1, sort_keys=True)


# -- the runner -----------------------------------------------------------------------------------

def fetch(repo: str, tag: str) -> None:
    """Copy CuPy's cupyx tests of `tag` from a CuPy git repository (bare or not)."""
    os.makedirs(SRC_DIR, exist_ok=True)
    git = ["git", "--git-dir", repo if not os.path.isdir(os.path.join(repo, ".git"))
           else os.path.join(repo, ".git")]
    archive = subprocess.check_output(git + ["archive", tag] + MANIFEST["files"])
    subprocess.run(["tar", "-x", "-C", SRC_DIR], input=archive, check=True)
    with open(os.path.join(SRC_DIR, "MANIFEST.json"), "w") as f:
        json.dump({**MANIFEST, "version": tag}, f, indent=1)


def shards(n: int, selected=None) -> list[list[str]]:
    """The test files (`selected`: those whose path ends so, default all) in n groups of about
    equal size (bytes of test code)."""
    chosen = [p for p in TEST_FILES if not selected or any(p.endswith(s) for s in selected)]
    files = sorted(chosen, key=lambda p: -os.path.getsize(os.path.join(SRC_DIR, TESTS, p)))
    groups = [[] for _ in range(n)]
    sizes = [0] * n
    for path in files:
        i = sizes.index(min(sizes))
        groups[i].append(os.path.join(TESTS, path))
        sizes[i] += os.path.getsize(os.path.join(SRC_DIR, TESTS, path))
    return [g for g in groups if g]


def run_shard(mode: str, i: int, files: list, workdir: str) -> subprocess.Popen:
    env = dict(os.environ, **{MODE_ENV: mode, OUT_ENV: os.path.join(workdir, f"{mode}-{i}.jsonl"),
                              CAPTURE_ENV: os.path.join(workdir, f"capture-{mode}-{i}.json"),
                              "CUPY_TEST_RANDOM_SUBSAMPLE": "1",
                              "_CUPY_TEST_SUBSAMPLE_SEED": SEED})
    env["PYTHONPATH"] = os.pathsep.join([HERE, ROOT, env.get("PYTHONPATH", "")])
    env["CUPY_CACHE_DIR"] = os.path.join(workdir, f"cupy-cache-{mode}")
    env["SAFEKERN_CACHE"] = os.path.join(workdir, f"safekern-cache-{mode}-{i}")
    cmd = [sys.executable, "-m", "pytest", "-p", "cupyx_suite", "-p", "no:cacheprovider",
           "-q", "-rN", "--tb=short", "-o", "addopts=", "-W",
           "ignore::pytest.PytestUnknownMarkWarning", "-m", "not slow", "--rootdir", SRC_DIR,
           "--confcutdir", SRC_DIR, *files]       # CuPy's tests/conftest.py: its subsampling
    log = open(os.path.join(workdir, f"{mode}-{i}.log"), "w")
    return subprocess.Popen(cmd, env=env, cwd=SRC_DIR, stdout=log, stderr=subprocess.STDOUT)


def outcomes(workdir: str, mode: str) -> dict:
    found = {}
    for name in sorted(os.listdir(workdir)):
        if name.startswith(f"{mode}-") and name.endswith(".jsonl"):
            for line in open(os.path.join(workdir, name)):
                rec = json.loads(line)
                if found.get(rec["test"], {}).get("outcome") not in ("fail", "error"):
                    found[rec["test"]] = rec        # a setup/teardown failure wins
    return found


def compare(plain: dict, checked: dict) -> dict:
    both = sorted(set(plain) & set(checked))
    regressions = []
    for test in both:
        if plain[test]["outcome"] in PASSED and checked[test]["outcome"] not in PASSED:
            known = next((why for (where, ids), why in KNOWN.items()
                          if where in test and any(test.endswith(i) for i in ids)), "")
            regressions.append({"test": test, "safekern": checked[test]["outcome"],
                                "detail": checked[test]["detail"], "known": known})
    return {"run_in_both": len(both),
            "pass_plain": sum(plain[t]["outcome"] == "pass" for t in both),
            "pass_both": sum(plain[t]["outcome"] == "pass" == checked[t]["outcome"]
                             for t in both),
            "only_plain": len(set(plain) - set(checked)),
            "only_safekern": len(set(checked) - set(plain)),
            "safekern_passes_plain_fails": sorted(
                t for t in both if plain[t]["outcome"] not in PASSED and
                checked[t]["outcome"] == "pass"),
            "regressions": regressions}


def merge_captures(workdir: str) -> dict:
    merged: dict = {}
    for name in sorted(os.listdir(workdir)):
        if name.startswith("capture-"):
            for key, rec in json.load(open(os.path.join(workdir, name))).items():
                have = merged.setdefault(key, rec)
                for field in ("name_expressions", "kernels"):
                    have[field] += [x for x in rec[field] if x not in have[field]]
    return merged


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fetch", metavar="CUPY_REPO", help="copy CuPy's cupyx tests here")
    ap.add_argument("--tag", default="v14.2.0")
    ap.add_argument("--shards", type=int, default=6, help="pytest processes per mode")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--timeout", type=float, default=280)
    ap.add_argument("--json", help="write the comparison here")
    ap.add_argument("--captured", help="write the sources safekern was given here")
    ap.add_argument("files", nargs="*", help="run only these test files (a path's end, e.g. "
                    "test_splines.py; default: every file)")
    args = ap.parse_args(argv)
    if args.fetch:
        fetch(args.fetch, args.tag)
        return 0
    if not os.path.isdir(os.path.join(SRC_DIR, TESTS)):
        print(f"no CuPy tests in {SRC_DIR}: run --fetch first", file=sys.stderr)
        return 2
    import tempfile

    workdir = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="cupyx-suite-"))
    os.makedirs(workdir, exist_ok=True)
    start = time.time()
    procs = [run_shard(mode, i, files, workdir) for i, files in enumerate(shards(args.shards, args.files))
             for mode in ("plain", "safekern")]
    for proc in procs:
        try:
            proc.wait(timeout=max(1, args.timeout - (time.time() - start)))
        except subprocess.TimeoutExpired:
            proc.kill()
            print(f"shard {proc.args[-1]}: cut off at {args.timeout:.0f} s", file=sys.stderr)
    result = compare(outcomes(workdir, "plain"), outcomes(workdir, "safekern"))
    result["seconds"] = round(time.time() - start)
    unexplained = [r for r in result["regressions"] if not r["known"]]
    print(f"cupyx: {result['run_in_both']} tests run in both modes ({result['only_plain']} only "
          f"plain, {result['only_safekern']} only safekern: cut off); {result['pass_plain']} "
          f"pass plainly, {result['pass_both']} of them pass under safekern; "
          f"{len(result['regressions'])} regressions ({len(unexplained)} unexplained); "
          f"{result['seconds']} s")
    for r in result["regressions"]:
        print(f"  {r['test']}: {r['safekern']}: {r['known'] or r['detail'][:3000]}")
    captured = merge_captures(workdir)
    print(f"sources given to safekern: {len(captured)}")
    if args.captured:
        with open(args.captured, "w") as f:
            json.dump(captured, f, indent=1, sort_keys=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if not result["run_in_both"]:
        return 2
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
