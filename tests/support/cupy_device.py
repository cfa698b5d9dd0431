"""CuPy tests that need a GPU: CuPy, imported, or the module skipped (no CuPy, no device)."""
import pytest


def cupy_with_a_device():
    """The `cupy` module when CuPy imports and sees a CUDA device; otherwise the calling test
    module is skipped (call it at module level)."""
    cp = pytest.importorskip("cupy")
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception:           # noqa: BLE001 - no driver, a broken install
        count = 0
    if count == 0:
        pytest.skip("no CUDA device", allow_module_level=True)
    return cp


def cupyx_module_checked(monkeypatch, package: str, module: str):
    """cupyx's `module` (its RawModules made at import) reloaded with `cupy.RawModule` as
    safekern's, as tools/cupyx_suite.py makes them; a generator for a fixture: it yields the
    module and reloads cupyx's own afterwards. Skips where `package` does not import."""
    import importlib

    import safekern.cupy as skcp

    pytest.importorskip(package)
    import cupy

    monkeypatch.setattr(cupy, "RawModule", skcp.RawModule)
    mod = importlib.import_module(module)
    yield importlib.reload(mod)
    monkeypatch.undo()
    importlib.reload(mod)
