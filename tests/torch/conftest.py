"""What every PyTorch test shares: no kernel failure left pending by one test reaches the next
one (the failure buffers are per device, for the whole process)."""
import pytest


@pytest.fixture(autouse=True)
def _no_failure_left_pending(no_pending_failure):
    yield
