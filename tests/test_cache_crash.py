"""Crash safety: a writer process killed with SIGKILL at random moments, 200 times.

After every kill the file opens, every entry whose put() returned before the kill is intact, and
no reader -- the killed writer itself, a reader process running throughout, the test process --
ever gets a wrong payload. The first 140 kills hit an unbounded file (nothing may be lost); the
last 60 hit a small bound, so many land in the middle of a compaction.
"""
import os
import random
import signal
import struct
import sys
import time

import pytest

from tests.cache_helpers import fresh_cache_warnings, key, payload  # noqa: F401
from safekern.cache import Cache

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

ROUNDS_UNBOUNDED, ROUNDS_BOUNDED = 140, 60
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
        i = rng.randrange(ROUNDS_UNBOUNDED + ROUNDS_BOUNDED) * KEYS_PER_ROUND + rng.randrange(60)
        got = rng.choice(caches).get(key(i))
        wrong += got is not None and got != value(i)
        reads += 1
        if reads % 20 == 0:
            time.sleep(0.001)       # leave the writer some CPU on a small machine
    os._exit(1 if wrong else 0)


def _fork(fn, *args):
    pid = os.fork()
    if pid == 0:
        try:
            fn(*args)
        finally:
            os._exit(3)
    return pid


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


def test_sigkill_writer_200_times(tmp_path):
    paths = {False: str(tmp_path / "unbounded.cache"), True: str(tmp_path / "bounded.cache")}
    for p in paths.values():
        Cache(p)                                 # the files exist before the reader starts
    rng = random.Random(2024)
    stop_file = str(tmp_path / "stop")
    reader_pid = _fork(_reader, list(paths.values()), stop_file)
    try:
        stats = _kill_writers(tmp_path, paths, rng)
    finally:
        open(stop_file, "w").close()
        _, status = os.waitpid(reader_pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the reader got a wrong payload"
    # A last write cleans up: no torn tail, no temporary file of a killed compaction.
    for bounded, path in paths.items():
        final = Cache(path, max_bytes=BOUND if bounded else None)
        assert final.put(b"last", b"write")
        report = final.verify()
        assert report.ok and report.torn_tail == 0
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    print("\n{} puts committed, {} kills left a torn tail, {} interrupted a compaction"
          .format(*stats), file=sys.stderr)


def _kill_writers(tmp_path, paths, rng):
    watchers = {b: Cache(p) for b, p in paths.items()}   # long-lived readers in this process
    committed_all = {False: [], True: []}
    torn_tails = interrupted_compactions = 0
    for round_ in range(ROUNDS_UNBOUNDED + ROUNDS_BOUNDED):
        bounded = round_ >= ROUNDS_UNBOUNDED
        path = paths[bounded]
        max_bytes = BOUND if bounded else None
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                _writer(path, max_bytes, round_ * KEYS_PER_ROUND, w)
            finally:
                os._exit(3)
        os.close(w)
        time.sleep(rng.uniform(0.001, 0.02))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        committed, wrong = _read_reports(r)
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
    assert len(committed_all[False]) > ROUNDS_UNBOUNDED     # the writers did get work done
    return sum(map(len, committed_all.values())), torn_tails, interrupted_compactions


def test_unbounded_phase_lost_nothing(tmp_path):
    """Every committed entry of many killed writers is intact at the end, not only sampled."""
    path = str(tmp_path / "crash.cache")
    committed = []
    rng = random.Random(7)
    for round_ in range(20):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                _writer(path, None, round_ * KEYS_PER_ROUND, w)
            finally:
                os._exit(3)
        os.close(w)
        time.sleep(rng.uniform(0.001, 0.02))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        committed += _read_reports(r)[0]
    fresh = Cache(path)
    assert all(fresh.get(key(i)) == value(i) for i in committed)
    assert len(fresh) >= len(committed)
