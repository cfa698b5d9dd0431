"""What every test of numba-cuda kernels shares: no kernel failure left pending by one test reaches the
next one (the failure buffers are per device, for the whole process)."""
import pytest
from tests.support.settings import set_safekern



@pytest.fixture(autouse=True)
def _no_failure_left_pending(no_pending_failure):
    yield


@pytest.fixture
def no_launch_predicates(monkeypatch):
    """Kernels decorated in the test launch the checked kernel only (no launch variant): for
    tests of the launch path itself, which look at the one kernel they launched."""

    set_safekern(monkeypatch, LAUNCH_PREDICATES="0")
    yield
    set_safekern(monkeypatch, LAUNCH_PREDICATES=None)
