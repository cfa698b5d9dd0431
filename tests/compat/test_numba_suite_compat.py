"""CI guard of issue 11: numba-cuda's own tests pass under safekern.jit on the simulator.

tools/numba_suite.py runs each module of the CI selection (numba_suite.CI_MODULES: every
cudapy module with a test the simulator runs) twice in child processes, with plain numba and
with `numba.cuda.jit` replaced by `safekern.jit` for the tests' own kernels, and compares the
outcomes test by test. A test that passes with plain numba but not with safekern fails this
test, unless numba_suite lists it (a real bug in numba's test, an open incompatibility being
fixed elsewhere, or a flaky test; docs/compatibility.md has the table). About 4 minutes on two
cores; marked `slow` (deselect locally with -m "not slow").
"""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "tools", "numba_suite.py")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def _load_suite():
    spec = importlib.util.spec_from_file_location("numba_suite", SUITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_numba_cuda_suite_passes_under_safekern(tmp_path):
    if importlib.util.find_spec("filecheck") is None:
        pytest.skip("numba-cuda's tests import filecheck (numba.cuda.testing): "
                    "pip install filecheck")
    suite = _load_suite()
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env.pop("SAFEKERN_CACHE", None)        # the runner gives its children a cache of their own
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, SUITE, "--ci", "--simulator", "--workers", "2", "--timeout", "400",
         "--json", str(out)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=1400)
    report = proc.stdout[-6000:] + proc.stderr[-2000:]
    data = json.loads(out.read_text())["results"]
    assert len(data) == len(suite.CI_MODULES), report
    plain_passed = sum(1 for r in data.values() for v in r["plain"]["outcomes"].values()
                       if v["outcome"] == "pass")
    # numba's own tests really ran (an import error in every module would compare equal).
    assert plain_passed > 500, report
    regressions = [x for r in data.values() for x in r.get("regressions", [])
                   if not x["excused"]]
    assert not regressions, "\n".join(
        f"{x['test']}: {x['outcome']}: {x['detail'][:300]}" for x in regressions) + report
    assert proc.returncode == 0, report
