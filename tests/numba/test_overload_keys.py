"""Cache keys of kernels calling plain functions that numba types from their @overload
registrations, and device functions with explicit signatures (tests/numba/overload_keys_probe.py,
run outside the simulator in two processes): kernels of the same source whose calls type
differently never share a key (numba's test_extending.*_var_keyword: a strict and a non-strict
overload of functions defined in numba's own test module); a module-level function's key is
the same in a new process (its stored binary is found)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tests.numba.overload_keys_probe"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def probes():
    return _run(), _run()


@pytest.mark.parametrize("name", ["strictness_in_a_numba_test_module",
                                  "strictness_in_a_user_module",
                                  "strictness_of_numbas_own_overload_decorator",
                                  "defaults_of_a_plain_numba_device_function",
                                  "closures_over_different_values",
                                  "explicit_signatures_of_a_device_function",
                                  "explicit_signatures_of_a_plain_numba_device_function",
                                  "numbas_own_functions_stay_cacheable"])
def test_keys(probes, name):
    assert probes[0][name] == "ok", probes[0][name]


def test_a_module_level_functions_key_is_the_same_in_a_new_process(probes):
    first, second = probes
    assert len(first["module_level"]) == 64
    assert first["module_level"] == second["module_level"]
