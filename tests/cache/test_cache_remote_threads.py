"""A remote tier that is dropped stops its worker thread (issue 29: 42 idle
`safekern-remote-cache` threads stayed alive in the test process, each blocked on its queue and
keeping its tier alive). Needs the redis client, not a server: the connection is a stand-in,
and the jobs here never talk to Redis."""
import gc
import threading
import time

import pytest

pytest.importorskip("redis")

from safekern.cache import remote  # noqa: E402
from safekern.cache.remote import Budget, RemoteTier  # noqa: E402

pytestmark = pytest.mark.timeout(60)
NAME = "safekern-remote-cache"


def _workers() -> int:
    return sum(t.name == NAME and t.is_alive() for t in threading.enumerate())


def _settles(expected, within=10.0) -> int:
    deadline = time.monotonic() + within
    while _workers() != expected and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.02)
    return _workers()


def _steady(within=5.0) -> int:
    """The workers left once earlier tests' dropped tiers have been collected: the count after
    it has stayed the same for a while (a full run's earlier tiers may still be stopping; the
    counts below are relative to what is left)."""
    deadline = time.monotonic() + within
    last, since = _workers(), time.monotonic()
    while time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.02)
        now = _workers()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > 0.3:
            break
    return last


class _Connection:
    def close(self):
        pass


@pytest.fixture(autouse=True)
def no_server(monkeypatch):
    """Workers connect to nothing (the tier's connect, and the module's where there is one)."""
    monkeypatch.setattr(RemoteTier, "connect", lambda self, timeout=None: _Connection())
    monkeypatch.setattr(remote, "_connect", lambda url, timeout: _Connection(), raising=False)


def _idle_tier():
    tier = RemoteTier("redis://127.0.0.1:1/0", trust=True, timeout=5.0)
    assert tier._call("probe", lambda client: 42, Budget(5.0)) == 42   # the worker is idle now
    return tier


def test_dropped_tiers_stop_their_workers():
    before = _steady()
    tiers = [_idle_tier() for _ in range(5)]
    assert _workers() == before + 5
    del tiers
    assert _settles(before) == before


def test_a_closed_tier_stops_its_worker_and_a_later_call_starts_one():
    before = _steady()
    tier = _idle_tier()
    tier.close()
    assert _settles(before) == before
    assert tier._call("probe", lambda client: 7, Budget(5.0)) == 7
    assert _workers() == before + 1
    del tier
    assert _settles(before) == before
