"""Run a probe module of tests/numba in a child process on real numba-cuda (no simulator:
NVVM compiles PTX, nvJitLink links, no GPU needed) and read the JSON it prints. Skips where
numba-cuda cannot find NVVM."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_probe(module: str, *args) -> dict:
    """`python -m module args...` from the checkout's root without NUMBA_ENABLE_CUDASIM."""
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        if "NVVM" in proc.stderr and "not found" in proc.stderr.lower():
            pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
        raise AssertionError(proc.stderr[-3000:])
    return json.loads(proc.stdout)


def instructions(body: str) -> int:
    """PTX instructions (inline asm's included), not directives, labels or comments."""
    n = 0
    for line in body.splitlines():
        for piece in line.split("//")[0].split(";")[:-1]:
            piece = piece.strip().lstrip("{").strip()
            if piece and not piece.startswith((".", "$")):
                n += 1
    return n
