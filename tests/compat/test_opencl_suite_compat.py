"""CI guard of issue 24: PyOpenCL's own tests pass with their programs checked (PoCL).

tools/opencl_suite.py runs PyOpenCL 2026.1.4's own tests (fetched at run time from its sdist on
PyPI, sha256-pinned, into the git-ignored .pyopencl-tests/; skipped where they cannot be had) in
child processes, plainly and with every `cl.Program(...)` of the test files made a
safekern.opencl.Program (mode "user"), and compares the outcomes test by test. The CI
selection (opencl_suite.CI_SELECTION) holds the files whose tests write programs of their own;
about two minutes on two cores. The full run (every file, mode "all" too) is by hand:
`python tools/opencl_suite.py` (docs/compatibility.md has the table).
"""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.support.opencl_env import cl, find_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "tools", "opencl_suite.py")

pytestmark = [pytest.mark.opencl, pytest.mark.slow, pytest.mark.timeout(900)]


def test_pyopencl_suite_passes_with_user_programs_checked(tmp_path):
    if cl is None or find_env("pocl") is None:
        pytest.skip("no PoCL platform")
    spec = importlib.util.spec_from_file_location("opencl_suite", SUITE)
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    if cl.VERSION_TEXT != suite.VERSION:
        pytest.skip(f"the vendored tests are PyOpenCL {suite.VERSION}'s; "
                    f"{cl.VERSION_TEXT} is installed (the oldest-versions job)")
    try:
        suite.fetch_tests()
    except OSError as err:
        pytest.skip(f"PyOpenCL {suite.VERSION}'s tests cannot be fetched here ({err}); "
                    "tests/opencl/test_opencl_everything.py covers the constructs")
    env = dict(os.environ)
    env.pop("SAFEKERN_CACHE", None)         # the runner gives its children a cache of their own
    out = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, SUITE, "--ci", "--platform", "portable",
                           "--deadline", "700", "--json", str(out)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=850)
    report = proc.stdout[-6000:] + proc.stderr[-2000:]
    data = json.loads(out.read_text())["results"]
    assert set(data) == set(suite.CI_SELECTION), report
    passed = sum(1 for r in data.values() for v in r["plain"]["outcomes"].values()
                 if v["outcome"] == "pass")
    assert passed > 50, report              # PyOpenCL's tests really ran
    regressions = [x for r in data.values() for x in r.get("regressions_user", [])
                   if not x["excused"]]
    assert not regressions, "\n".join(f"{x['test']}: {x['detail'][:300]}"
                                      for x in regressions) + report
    assert proc.returncode == 0, report
