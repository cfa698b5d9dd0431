"""A failure source planted by a test: it stands for a checked kernel that failed on a device
(tests/core/test_torch_sync.py, tests/core/test_library_watch.py: CI has no GPU)."""
from __future__ import annotations

import pytest

import safekern
from safekern import runtime


class PlantedSource(runtime.FailureSource):
    """A device's failure buffer holding `failure` (taken by the next check)."""

    def __init__(self, device_id: int):
        super().__init__()
        self.device_id = device_id
        self.name = f"CUDA device {device_id}"
        self.failure = None
        self.checks = 0

    def fail(self):
        """A checked kernel ran on this device and failed."""
        self.failure = safekern.BoundsError(array="src", axis=0, index=99, size=64)
        self.mark_launched()

    def matches(self, target) -> bool:
        return target is None or target == self.device_id

    def check(self, *, synchronize: bool = True):
        self.checks += 1
        self.dirty = False
        failure, self.failure = self.failure, None
        return failure


@pytest.fixture
def dev1():
    """Device 1's planted source, taken out of the pending list afterwards."""
    source = PlantedSource(1)
    yield source
    with runtime._lock:
        if source in runtime._pending:
            runtime._pending.remove(source)
