"""numba-cuda's test_dispatcher.test_explicit_signatures_device without a GPU: a checked device
function with several explicit signatures, called with types none takes, gives numba's
TypingError in the user's terms (no hidden parameters), and the kernel's overloads are the two
that compiled (tests/compat/signatures_probe.py, run outside the simulator)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def probe():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tests.compat.signatures_probe"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "NVVM" in proc.stderr:
        pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["explicit_signatures_device_typing_error",
                                  "overloads_skip_launches_that_failed_to_compile"])
def test_explicit_signatures_device(probe, name):
    assert probe.get(name) == "ok", probe.get(name)
