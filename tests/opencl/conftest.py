"""What every test of OpenCL kernels shares: no kernel failure left pending by one test reaches the
next one (the failure buffers are per device, for the whole process)."""
import pytest

from tests.support.opencl_env import clenv  # noqa: F401 (the OpenCL context fixture)


@pytest.fixture(autouse=True)
def _no_failure_left_pending(no_pending_failure):
    yield
