"""CuPy's own tests of its user-kernel classes, run plain and with safekern's classes
substituted for every caller (`cupy.ElementwiseKernel` and `cupy.ReductionKernel` are
safekern's before the test module is imported), each in a child process; prints a table of the
outcomes and how many kernels safekern made.

    python -m tests.support.cupy_peer fetch [--mirror GIT_DIR] [--dir .cupy_peer]
    python -m tests.support.cupy_peer run [--dir .cupy_peer]

CuPy's files stay out of this repository: `fetch` copies the ones PINNED names, at the pinned
commit, from a checkout of CuPy (a git directory, e.g. the mirror of github.com/cupy/cupy)
into the git-ignored `.cupy_peer/`, which a GPU run carries. tests/cupy/test_elementwise.py
also compiles against the carray.cuh found there (or in an installed CuPy) when there is one.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DIR = os.path.join(ROOT, ".cupy_peer")

#: what `fetch` copies: CuPy's (MIT licence, Copyright (c) 2015 Preferred Infrastructure, Inc.
#: and Preferred Networks, Inc.), unchanged; the names are not test_*.py so that the project's
#: own pytest run does not collect them
PINNED = {
    "project": "https://github.com/cupy/cupy", "tag": "v14.2.0",
    "commit": "dc1552a32f5489bdf6a5a721dfd952a92d47d934", "licence": "MIT",
    "files": {
        "tests/cupy_tests/core_tests/test_userkernel.py": "userkernel_v14_2_0.py",
        "tests/cupy_tests/core_tests/test_reduction.py": "reduction_v14_2_0.py",
        "cupy/_core/include/cupy/carray.cuh": "include/cupy/carray.cuh",
    },
}
TEST_FILES = ("userkernel_v14_2_0.py", "reduction_v14_2_0.py")

_CHILD = r"""
import json, sys, pytest
mode, path, out = sys.argv[1:4]
made = {"ElementwiseKernel": 0, "ReductionKernel": 0}
if mode == "safekern":
    import cupy, safekern.cupy as skcp

    def counted(cls):
        class Counted(cls):
            def __init__(self, *args, **kwargs):
                made[cls.__name__] += 1
                super().__init__(*args, **kwargs)
        return Counted

    cupy.ElementwiseKernel = counted(skcp.ElementwiseKernel)
    cupy.ReductionKernel = counted(skcp.ReductionKernel)
results = {}
class Collect:
    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            prev = results.get(report.nodeid)
            if prev in (None, "passed"):
                results[report.nodeid] = report.outcome + (
                    ": " + report.longreprtext.strip().splitlines()[-1][:160]
                    if report.outcome == "failed" and report.longreprtext.strip() else "")
pytest.main(["-q", "-p", "no:cacheprovider", "-o", "python_files=*.py", path],
            plugins=[Collect()])
results["(kernels made by safekern)"] = str(made)
json.dump(results, open(out, "w"))
"""


def fetch(mirror: str, directory: str) -> None:
    for src, dst in PINNED["files"].items():
        data = subprocess.run(["git", "--git-dir", mirror, "show", f"{PINNED['commit']}:{src}"],
                              check=True, capture_output=True).stdout
        path = os.path.join(directory, dst)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    with open(os.path.join(directory, "PINNED.json"), "w") as f:
        json.dump(PINNED, f, indent=1)


def run(path: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        subprocess.run([sys.executable, "-c", _CHILD, mode, path, out], check=False,
                       timeout=900)
        with open(out) as f:
            return json.load(f)


def table(path: str) -> None:
    plain, mine = run(path, "plain"), run(path, "safekern")
    plain.pop("(kernels made by safekern)", None)
    print(f"## {os.path.basename(path)}: {len(plain)} tests")
    print(f"safekern made: {mine.pop('(kernels made by safekern)', '?')}\n")
    print("| test | plain CuPy | safekern |")
    print("| --- | --- | --- |")
    for test in sorted(plain):
        print(f"| {test.split('::', 1)[1]} | {plain[test]} | {mine.get(test, 'missing')} |")
    both = sum(1 for t in plain if plain[t] == "passed")
    kept = sum(1 for t in plain if plain[t] == "passed" and mine.get(t) == "passed")
    print(f"\nplain passes {both}; of those, {kept} pass under safekern\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.cupy_peer")
    parser.add_argument("what", choices=("fetch", "run"))
    parser.add_argument("--dir", default=DEFAULT_DIR)
    parser.add_argument("--mirror", default="/work/.mirror/cupy+cupy/repo")
    args = parser.parse_args(argv)
    if args.what == "fetch":
        fetch(args.mirror, args.dir)
        return 0
    missing = [f for f in TEST_FILES if not os.path.exists(os.path.join(args.dir, f))]
    if missing:
        print(f"{args.dir} lacks {missing}: run `python -m tests.support.cupy_peer fetch` first")
        return 2
    for name in TEST_FILES:
        table(os.path.join(args.dir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
