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
