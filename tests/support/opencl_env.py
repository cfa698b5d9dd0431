"""OpenCL platforms for the tests: PoCL on the CPU (marker `opencl`), NVIDIA's (marker `gpu`).

Import this module before pyopencl. The PoCL that pyopencl's optional wheel dependency bundles
fails on some CPUs ("unknown target CPU 'generic'"), so the tests use the system's ICDs
(Debian's pocl-opencl-icd in CI): OCL_ICD_VENDORS points at /etc/OpenCL/vendors unless it is
set already. Where the NVIDIA driver's OpenCL library exists but no ICD file names it (common in
containers), a private vendors directory adds one (`benchmarks.backends.setup_icd_vendors`, which
the benchmarks use too).
"""
from __future__ import annotations

import pytest

from benchmarks.backends import setup_icd_vendors

setup_icd_vendors()

try:
    import pyopencl as cl
except ImportError:  # pragma: no cover - the opencl extra is not installed
    cl = None

PLATFORMS = {
    "pocl": ("portable computing language",),
    "nvidia": ("nvidia",),
}

#: Parametrisation of every end-to-end OpenCL test: PoCL (CI) and NVIDIA (the H200).
PLATFORM_PARAMS = [
    pytest.param("pocl", marks=pytest.mark.opencl, id="pocl"),
    pytest.param("nvidia", marks=[pytest.mark.opencl, pytest.mark.gpu], id="nvidia"),
]


class Env:
    def __init__(self, kind, platform, device):
        self.kind = kind
        self.platform = platform
        self.device = device
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx, device)

    def __repr__(self):
        return f"<Env {self.kind}: {self.device.name}>"


_envs: dict[str, Env | None] = {}


def _platforms():
    try:
        return cl.get_platforms()
    except cl.Error:
        return []


def find_env(kind: str) -> Env | None:
    if cl is None:
        return None
    if kind not in _envs:
        env = None
        for p in _platforms():
            if any(word in p.name.lower() or word in p.vendor.lower()
                   for word in PLATFORMS[kind]):
                try:
                    devices = p.get_devices()
                except cl.Error:
                    devices = []
                if devices:
                    env = Env(kind, p, devices[0])
                    break
        _envs[kind] = env
    return _envs[kind]


def require_env(kind: str) -> Env:
    env = find_env(kind)
    if env is None:
        pytest.skip(f"no {kind} OpenCL platform here "
                    f"(platforms: {[p.name for p in _platforms()] if cl else 'no pyopencl'})")
    return env


@pytest.fixture(params=PLATFORM_PARAMS)
def clenv(request):
    """An OpenCL context and queue on PoCL or NVIDIA; pending failures are cleared after."""
    env = require_env(request.param)
    yield env
    import safekern

    try:
        safekern.sync()
    except safekern.KernelError:
        pass
