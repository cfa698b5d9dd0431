"""Test set-up shared by every test.

- numba-cuda kernels run on the real GPU when there is one, else on the CUDA simulator
  (NUMBA_ENABLE_CUDASIM=1 is set here, before numba is imported). Tests marked `cudasim` get the
  `gpu` marker too when they run on a real device, so `pytest -m gpu` runs them there.
- Every test gets a fresh temporary cache file (SAFEKERN_CACHE) and a fresh configuration.
"""
import os
import shutil

import pytest


def _has_nvidia_gpu() -> bool:
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0") or bool(
        shutil.which("nvidia-smi") and os.system("nvidia-smi -L >/dev/null 2>&1") == 0)


HAS_GPU = _has_nvidia_gpu()
if not HAS_GPU:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="needs a real GPU")
    for item in items:
        if "cudasim" in item.keywords and not SIMULATOR:
            item.add_marker(pytest.mark.gpu)
        if "gpu" in item.keywords and (SIMULATOR or not HAS_GPU):
            item.add_marker(skip_gpu)


@pytest.fixture(autouse=True)
def _fresh_safekern_config(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEKERN_CACHE", str(tmp_path / "safekern-test.cache"))
    for name in ("SAFEKERN_CHECKS", "SAFEKERN_SYNC_EVERY_LAUNCH", "SAFEKERN_CACHE_READONLY",
                 "SAFEKERN_CACHE_MAX_BYTES"):
        monkeypatch.delenv(name, raising=False)
    from safekern import config

    config.reload()
    yield
    monkeypatch.undo()
    config.reload()


def _drain_failures():
    import safekern

    try:
        safekern.sync()
    except safekern.KernelError:
        pass


@pytest.fixture
def no_pending_failure():
    """A failure left pending by one test must not leak into the next one."""
    _drain_failures()
    yield
    _drain_failures()
