"""Many processes on one cache file: nothing lost, nothing corrupt, the bound holds, and each
kernel is compiled once across processes started together.

The worker processes never outlive their test (tests/support/child_procs.py): own process group, a hard
lifetime, killed as a group when the test ends however it ends, and a pytest timeout."""
import multiprocessing
import os
import random
import time

import pytest

from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings, key, payload  # noqa: F401
from tests.support.child_procs import Children
from safekern.cache import Cache
from safekern.cache.kernels import KernelCache
from safekern.cache.locks import key_lock
from safekern.cache import keys

HAS_FORK = "fork" in multiprocessing.get_all_start_methods()
#: seconds for each test (pytest-timeout; the signal method, so that the cleanup runs)
TEST_TIMEOUT = 240
pytestmark = [pytest.mark.skipif(not HAS_FORK, reason="uses the fork start method"),
              pytest.mark.timeout(TEST_TIMEOUT, method="signal")]
ctx = multiprocessing.get_context("fork") if HAS_FORK else None

PROCESSES, KEYS = 16, 50
#: hard lifetime of every worker process, and how long any one wait in a test may take
LIFETIME, WAIT = 200, 120


def _worker(path, max_bytes, proc, barrier, results):
    rng = random.Random(proc)
    c = Cache(path, max_bytes=max_bytes, lock_timeout=120)
    c.touch_interval = 0
    failed_puts, wrong, over_bound = [], [], 0
    barrier.wait(WAIT)
    for j in range(KEYS):
        if not c.put(key(proc, j), payload(proc, j)):
            failed_puts.append(j)
        if max_bytes is not None and os.path.getsize(path) > max_bytes:
            over_bound += 1
        for _ in range(3):
            p, k = rng.randrange(PROCESSES), rng.randrange(KEYS)
            got = c.get(key(p, k))
            if got is not None and got != payload(p, k):
                wrong.append((p, k))
    own_missing = [j for j in range(KEYS) if c.get(key(proc, j)) != payload(proc, j)]
    results.put((proc, failed_puts, wrong, over_bound, own_missing))


def _run_writers(path, max_bytes):
    with Children() as kids:
        barrier = ctx.Barrier(PROCESSES)
        results = ctx.Queue()
        procs = [kids.process(ctx, _worker, (path, max_bytes, p, barrier, results),
                              lifetime=LIFETIME) for p in range(PROCESSES)]
        sizes = []
        deadline = time.monotonic() + WAIT
        while any(p.is_alive() for p in procs) and time.monotonic() < deadline:
            if os.path.exists(path):
                sizes.append(os.path.getsize(path))
            time.sleep(0.002)
        out = [results.get(timeout=WAIT) for _ in procs]
        for p in procs:
            p.join(timeout=WAIT)
            assert p.exitcode == 0
    return out, sizes


def test_16_processes_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.cache")
    out, _ = _run_writers(path, None)
    for proc, failed_puts, wrong, _, own_missing in out:
        assert not failed_puts and not wrong and not own_missing, proc
    fresh = Cache(path)
    assert len(fresh) == PROCESSES * KEYS
    assert all(fresh.get(key(p, j)) == payload(p, j)
               for p in range(PROCESSES) for j in range(KEYS))
    report = fresh.verify()
    assert report.ok and report.records == PROCESSES * KEYS and report.torn_tail == 0


def test_16_processes_keep_the_bound(tmp_path):
    path = str(tmp_path / "bounded.cache")
    bound = 256 * 1024          # about an eighth of what they write: many compactions
    out, sizes = _run_writers(path, bound)
    for proc, failed_puts, wrong, over_bound, _ in out:
        assert not failed_puts and not wrong and over_bound == 0, proc
    assert sizes and max(sizes) <= bound
    fresh = Cache(path, max_bytes=bound)
    report = fresh.verify()
    assert report.ok and report.torn_tail == 0 and os.path.getsize(path) <= bound
    hits = 0
    for p in range(PROCESSES):
        for j in range(KEYS):
            got = fresh.get(key(p, j))
            assert got is None or got == payload(p, j)
            hits += got is not None
    assert 0 < hits < PROCESSES * KEYS
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def _compile_worker(path, log_path, barrier, results):
    kc = KernelCache(Cache(path, lock_timeout=120), lock_timeout=120)
    barrier.wait(WAIT)
    got = {}
    for k in range(20):
        fields = {"kernel": f"k{k}", "source": f"source {k}"}

        def compile_fn(k=k):
            with open(log_path, "a") as log:
                log.write(f"k{k}\n")
            time.sleep(0.01)
            return payload("kernel", k)

        got[k] = kc.get_or_compile(fields, compile_fn, describe=f"kernel k{k}")
    results.put(all(got[k] == payload("kernel", k) for k in got))


def test_each_kernel_is_compiled_once_across_processes(tmp_path):
    path, log_path = str(tmp_path / "k.cache"), str(tmp_path / "compiles.log")
    n = 8
    with Children() as kids:
        barrier, results = ctx.Barrier(n), ctx.Queue()
        procs = [kids.process(ctx, _compile_worker, (path, log_path, barrier, results),
                              lifetime=LIFETIME) for _ in range(n)]
        oks = [results.get(timeout=WAIT) for _ in procs]
        for p in procs:
            p.join(timeout=WAIT)
            assert p.exitcode == 0
    assert all(oks)
    with open(log_path) as log:
        compiled = log.read().split()
    assert sorted(compiled) == sorted(f"k{k}" for k in range(20))


def _hold(lock_fn, ready, release):
    with lock_fn():
        ready.set()
        release.wait(30)


def test_a_waiter_compiles_itself_after_the_key_lock_timeout(tmp_path):
    path = str(tmp_path / "k.cache")
    kc = KernelCache(Cache(path), lock_timeout=0.3)
    fields = {"kernel": "slow"}
    digest = keys.digest(kc.key(fields))
    with Children() as kids:
        ready, release = ctx.Event(), ctx.Event()
        holder = kids.process(ctx, _hold, (lambda: key_lock(path + ".keylock", digest, 5),
                                           ready, release), lifetime=60)
        assert ready.wait(30)
        with cache_warnings() as caught:
            start = time.monotonic()
            assert kc.get_or_compile(fields, lambda: b"local", describe="kernel 'slow'") == \
                b"local"
            waited = time.monotonic() - start
        assert 0.25 <= waited < 5
        assert len(caught) == 1 and "compiling it here too" in str(caught[0].message)
        assert kc.get_or_compile(fields, lambda: b"again") == b"local"    # it was stored
        release.set()
        holder.join(30)
        assert holder.exitcode == 0


def test_write_lock_timeout_runs_uncached_with_one_warning(tmp_path):
    import filelock

    path = str(tmp_path / "k.cache")
    Cache(path)
    with Children() as kids:
        ready, release = ctx.Event(), ctx.Event()
        holder = kids.process(ctx, _hold, (lambda: filelock.FileLock(path + ".lock"),
                                           ready, release), lifetime=60)
        assert ready.wait(30)
        kc = KernelCache(Cache(path, lock_timeout=0.2), lock_timeout=0.2)
        with cache_warnings() as caught:
            for i in range(3):
                assert kc.get_or_compile({"k": i}, lambda i=i: b"bin%d" % i) == b"bin%d" % i
        assert len(caught) == 1 and "timed out" in str(caught[0].message)
        assert len(Cache(path)) == 0
        release.set()
        holder.join(30)
        assert holder.exitcode == 0
