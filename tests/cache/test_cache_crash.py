"""Crash safety: a writer process killed with SIGKILL at random moments, as often as fits a time
budget (tests/support/budget.py; at least 60 times, more on a quiet machine).

After every kill the file opens, every entry whose put() returned before the kill is intact, and
no reader -- the killed writer itself, a reader process running throughout, the test process --
ever gets a wrong payload. The first kills (at least 40) hit an unbounded file (nothing may be
lost); the last ones (at least 20) hit a small bound, so many land in the middle of a compaction.

The children never outlive the test (tests/support/child_procs.py): each runs in its own process group with
a hard lifetime, is killed as a group, and whatever is left is killed when the test ends, however
it ends (an assertion, or the pytest timeout below).
"""
import itertools
import os
import random
import signal
import struct
import sys
import time

import pytest

from tests.support.cache_helpers import fresh_cache_warnings, key, payload  # noqa: F401
from tests.support.budget import Budget
from tests.support.child_procs import Children
from safekern.cache import Cache

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

#: seconds for a whole test (pytest-timeout; the signal method, so that the cleanup runs)
TEST_TIMEOUT = 240
#: hard lifetimes of the children: a writer is killed within 20 ms; the reader runs throughout
WRITER_LIFETIME, READER_LIFETIME = 60, TEST_TIMEOUT + 30
#: how long a killed writer, or the reader once told to stop, may take to be gone
REAP_TIMEOUT = 30

#: (budget in seconds, at least this many kills) for the unbounded file, then the bounded one;
#: the pytest timeout is a hang guard well above both
UNBOUNDED_BUDGET, BOUNDED_BUDGET = (18, 40), (8, 20)
#: no more kills than this in all (the reader picks its keys among their rounds)
MAX_ROUNDS = 1000
BOUND = 256 * 1024
KEYS_PER_ROUND = 1_000_000


CAP = 128 * 1024      # largest payload; most are under 8 KiB


def value(i: int) -> bytes:
    rng = random.Random(i)
    return payload(i, size=rng.randrange(8192) if rng.random() < 0.95 else rng.randrange(CAP))


def _writer(path, max_bytes, first, out_fd):
    """Put keys first, first+1, ... until killed; report each committed key (>= 0) and any
    wrong payload read back (< 0) on out_fd."""
    c = Cache(path, max_bytes=max_bytes, lock_timeout=60)
    c.touch_interval = 0            # hits rewrite last-use times in place as well
    rng = random.Random(first)
    i = first
    while True:
        if c.put(key(i), value(i)):
            os.write(out_fd, struct.pack("<q", i))
        j = rng.randrange(first, i + 1)
        got = c.get(key(j))
        if got is not None and got != value(j):
            os.write(out_fd, struct.pack("<q", -1 - j))
        i += 1


def _reader(paths, stop_file):
    """Read random keys until stop_file exists; exit status 1 if any payload was wrong."""
    caches = [Cache(p, readonly=True) for p in paths]
    rng = random.Random(99)
    wrong = reads = 0
    while not os.path.exists(stop_file):
        i = rng.randrange(MAX_ROUNDS) * KEYS_PER_ROUND + rng.randrange(60)
        got = rng.choice(caches).get(key(i))
        wrong += got is not None and got != value(i)
        reads += 1
        if reads % 20 == 0:
            time.sleep(0.001)       # leave the writer some CPU on a small machine
    os._exit(1 if wrong else 0)


def _start_writer(kids, path, max_bytes, first):
    """A writer child (see _writer); returns its pid and the read end of its report pipe."""
    r, w = os.pipe()

    def run():
        os.close(r)
        _writer(path, max_bytes, first, w)

    try:
        pid = kids.fork(run, lifetime=WRITER_LIFETIME)
    finally:
        os.close(w)
    return pid, r


def _kill_writer(kids, pid, r):
    """SIGKILL the writer's process group; return its reports (committed keys, wrong reads)."""
    kids.kill(pid)
    status = kids.reap(pid, REAP_TIMEOUT)
    reports = _read_reports(r)      # EOF: the only write end died with the writer
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, \
        f"the writer ended by itself (wait status {status:#x}) instead of being killed"
    return reports


def _read_reports(fd):
    data = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    numbers = [n for (n,) in struct.iter_unpack("<q", data)]
    return [n for n in numbers if n >= 0], [-1 - n for n in numbers if n < 0]


@pytest.mark.timeout(TEST_TIMEOUT, method="signal")
def test_sigkill_writer_many_times(tmp_path):
    paths = {False: str(tmp_path / "unbounded.cache"), True: str(tmp_path / "bounded.cache")}
    for p in paths.values():
        Cache(p)                                 # the files exist before the reader starts
    rng = random.Random(2024)
    stop_file = str(tmp_path / "stop")
    with Children() as kids:
        reader_pid = kids.fork(_reader, list(paths.values()), stop_file,
                               lifetime=READER_LIFETIME)
        try:
            stats = _kill_writers(kids, tmp_path, paths, rng)
        finally:
            open(stop_file, "w").close()
        status = kids.reap(reader_pid, REAP_TIMEOUT)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, \
        f"the reader got a wrong payload or failed (wait status {status:#x})"
    # A last write cleans up: no torn tail, no temporary file of a killed compaction.
    for bounded, path in paths.items():
        final = Cache(path, max_bytes=BOUND if bounded else None)
        assert final.put(b"last", b"write")
        report = final.verify()
        assert report.ok and report.torn_tail == 0
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    print("\n{} puts committed, {} kills left a torn tail, {} interrupted a compaction"
          .format(*stats), file=sys.stderr)


def _kill_writers(kids, tmp_path, paths, rng):
    watchers = {b: Cache(p) for b, p in paths.items()}   # long-lived readers in this process
    committed_all = {False: [], True: []}
    torn_tails = interrupted_compactions = 0
    budgets = {b: Budget(seconds, at_least=least, at_most=MAX_ROUNDS // 2)
               for b, (seconds, least) in ((False, UNBOUNDED_BUDGET), (True, BOUNDED_BUDGET))}
    rounds = itertools.chain(((r, False) for r in budgets[False].seeds()),
                             ((r, True) for r in budgets[True].seeds(start=MAX_ROUNDS // 2)))
    for round_, bounded in rounds:
        path = paths[bounded]
        max_bytes = BOUND if bounded else None
        pid, r = _start_writer(kids, path, max_bytes, round_ * KEYS_PER_ROUND)
        time.sleep(rng.uniform(0.001, 0.02))
        committed, wrong = _kill_writer(kids, pid, r)
        assert not wrong, f"round {round_}: the writer read wrong payloads for {wrong}"
        if any(n.endswith(".tmp") for n in os.listdir(tmp_path)):
            interrupted_compactions += 1
        history = committed_all[bounded]
        sample = committed + rng.sample(history, min(30, len(history)))
        history += committed

        fresh = Cache(path, max_bytes=max_bytes)
        assert fresh.usable and fresh.writable, round_
        report = fresh.verify()
        assert report.header_problem is None and not report.problems, (round_, report)
        torn_tails += bool(report.torn_tail)
        for i in sample:
            got = fresh.get(key(i))
            if bounded:          # may have been evicted, but never wrong
                assert got is None or got == value(i), (round_, i)
            else:                # nothing committed is ever lost
                assert got == value(i), (round_, i)
            got = watchers[bounded].get(key(i))
            assert got is None or got == value(i), (round_, i)
        if bounded:
            assert os.path.getsize(path) <= BOUND, round_
    assert len(committed_all[False]) > budgets[False].ran   # the writers did get work done
    budgets[False].log("kills, unbounded file")
    budgets[True].log("kills, bounded file")
    return sum(map(len, committed_all.values())), torn_tails, interrupted_compactions


@pytest.mark.timeout(120, method="signal")
def test_unbounded_phase_lost_nothing(tmp_path):
    """Every committed entry of many killed writers is intact at the end, not only sampled."""
    path = str(tmp_path / "crash.cache")
    committed = []
    rng = random.Random(7)
    with Children() as kids:
        for round_ in range(20):
            pid, r = _start_writer(kids, path, None, round_ * KEYS_PER_ROUND)
            time.sleep(rng.uniform(0.001, 0.02))
            got, wrong = _kill_writer(kids, pid, r)
            assert not wrong, f"round {round_}: the writer read wrong payloads for {wrong}"
            committed += got
    fresh = Cache(path)
    assert all(fresh.get(key(i)) == value(i) for i in committed)
    assert len(fresh) >= len(committed)
