"""benchmarks.assert_cost runs end to end here: numba on the simulator (verified, not timed),
OpenCL on PoCL (timed; CPU figures), CuPy skipped without a GPU. No timing is asserted."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyopencl")
pytest.importorskip("clang.cindex")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.opencl
@pytest.mark.timeout(600)
def test_quick_run_verifies_every_mode_and_writes_results(tmp_path):
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "k.cache"),
               OCL_ICD_VENDORS=os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    env.pop("SAFEKERN_KERNEL_ASSERTS", None)
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.assert_cost", "--quick",
                           "--only", "numba,opencl", "--out", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=540)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (result,) = [json.loads(p.read_text()) for p in out.glob("assert_cost-*.json")]
    opencl = result["results"]["opencl"]
    assert set(opencl["times"]) == set(opencl["verified"]) == {
        "unchecked", "unchecked, no assert", "checked", "checked, SAFEKERN_KERNEL_ASSERTS=0"}
    assert all(opencl["verified"].values())
    numba = result["results"]["numba"]
    assert all(numba["verified"].values()) and len(numba["verified"]) == 3
    md = next(out.glob("assert_cost-*.md")).read_text()
    assert "| checked |" in md and "## opencl" in md
