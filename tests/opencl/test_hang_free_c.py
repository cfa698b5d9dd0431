"""A failing work-item never hangs, in the OpenCL C and CUDA C rewrites: each kernel of
tests/opencl/c_hang_kernels.py (sentinel scans whose stand-in value would send the work-item round for
ever: in the loop's header, through `continue` in an if or a switch, in a helper; a linked-list
walk; barrier kernels) runs in a child process with a deadline, so a work-item that spins fails
the test by the timeout instead of hanging the suite.

PoCL in CI (marker `opencl`); NVIDIA's OpenCL and CuPy on a GPU machine (marker `gpu`).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.opencl import c_hang_kernels

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEADLINE = 120     # seconds: importing, building and one launch take a few

pytestmark = pytest.mark.timeout(DEADLINE + 60)

BACKENDS = [
    pytest.param("pocl", marks=pytest.mark.opencl, id="pocl"),
    pytest.param("nvidia", marks=[pytest.mark.opencl, pytest.mark.gpu], id="nvidia"),
    pytest.param("cupy", marks=pytest.mark.gpu, id="cupy"),
]


def _require(backend: str) -> None:
    if backend == "cupy":
        cp = pytest.importorskip("cupy")
        try:
            count = cp.cuda.runtime.getDeviceCount()
        except Exception:       # no driver: CuPy imports, but there is no device
            count = 0
        if not count:
            pytest.skip("no CUDA device")
    else:
        from tests.support.opencl_env import require_env

        require_env(backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(c_hang_kernels.CASES))
def test_failing_work_item_leaves_its_loops(backend, name, tmp_path):
    _require(backend)
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "tests.opencl.c_hang_kernels", backend, name],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{name} on {backend}: the kernel still ran after {DEADLINE} s: a failing "
                    f"work-item hangs\n{out}")
    assert proc.returncode == 0, err[-3000:]
    assert out.strip().split("\n")[-1] == c_hang_kernels.expected(name, backend), err[-3000:]


@pytest.mark.nvrtc
@pytest.mark.parametrize("name", list(c_hang_kernels.CASES))
def test_cuda_versions_are_checked_at_the_site_and_compile(name):
    # Without a GPU: what the `cupy` runs above launch builds, and checks the failing line.
    pytest.importorskip("clang.cindex")
    from safekern.backends.cupy import api as backend
    from safekern.backends.cupy import nvrtc
    from safekern.frontend.c import cuda
    from tests.cupy.cuda_c_kernels import line

    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as err:
        pytest.skip(f"NVRTC not available: {err}")
    src = c_hang_kernels.CASES[name].cuda
    rw = cuda.rewrite(src, filename=f"{name}.cu", arch="sm_90")
    site = line(src, "site")
    assert any(e.status == "checked" and e.lineno == site for e in rw.report()), rw.report()
    out = nvrtc.compile_program(rw.source, filename=f"{name}.cu", arch="sm_90",
                                options=backend.compile_options(()))
    assert out.cubin[:4] == b"\x7fELF"
