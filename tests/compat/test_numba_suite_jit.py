"""tools/numba_suite.py replaces numba's jit for every caller of a safekern child: the tests,
modules imported from elsewhere under any name (numba's cache tests import theirs from a
temporary folder), and every Python process the child starts -- but never for numba's
internals or safekern itself, which must keep building on numba's own jit."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "tools", "numba_suite.py")

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]

_USER_MODULE = """
from numba import cuda


@cuda.jit
def fill(a):
    a[0] = 7
"""

_CHILD = """
import json, subprocess, sys
import numpy as np
sys.path.insert(0, {folder!r})
import fodder_module_any_name as mod

a = np.zeros(1, np.int64)
mod.fill[1, 1](a)
jitted = {{}}
for caller in ("numba.cuda.tests.cudapy.test_x", "numba.cuda.vectorizers", "safekern.x"):
    scope = {{"__name__": caller}}
    exec("from numba import cuda\\nk = cuda.jit(lambda a: None)", scope)
    jitted[caller] = type(scope["k"]).__module__
print(json.dumps({{"type": type(mod.fill).__module__, "value": int(a[0]), "jitted": jitted}}))
"""


def _suite():
    spec = importlib.util.spec_from_file_location("numba_suite", SUITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(code, env):
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=240, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_caller_and_every_subprocess_gets_safekern_jit(tmp_path):
    (tmp_path / "fodder_module_any_name.py").write_text(_USER_MODULE)
    base = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", SAFEKERN_CACHE="off")
    base["PYTHONPATH"] = ROOT + os.pathsep + base.get("PYTHONPATH", "")
    child = _CHILD.format(folder=str(tmp_path))
    env = _suite().safekern_env(base)
    got = _run(child, env)
    assert (got["type"], got["value"]) == ("safekern.backends.numba.kernel", 7)
    # numba's tests get safekern's; numba's internals and safekern keep numba's own.
    # (a function exec'd from a string has no source: safekern's unchecked wrapper of numba's)
    assert got["jitted"]["numba.cuda.tests.cudapy.test_x"].startswith("safekern."), got
    assert got["jitted"]["numba.cuda.vectorizers"].startswith("numba."), got
    assert got["jitted"]["safekern.x"].startswith("numba."), got
    # A process started by that one (as numba's cache tests start theirs) inherits it.
    nested = f"import subprocess, sys; print(subprocess.run([sys.executable, '-c', {child!r}]," \
             f" capture_output=True, text=True).stdout.strip().splitlines()[-1])"
    assert _run(nested, env)["type"] == "safekern.backends.numba.kernel"
    # The plain run's children keep numba's jit.
    assert _run(child, base)["type"] != "safekern.backends.numba.kernel"
