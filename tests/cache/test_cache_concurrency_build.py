"""A build in progress that others wait for: processes and threads starting together with an
empty cache compile each kernel once in total, the waiters have it right after the build, and
every wait is bounded (then the waiter compiles for itself).

Children never outlive their test (tests/support/child_procs.py)."""
import multiprocessing
import threading
import time

import pytest

from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings, payload  # noqa: F401
from tests.support.child_procs import Children
from safekern.cache import Cache, keys
from safekern.cache.kernels import KernelCache
from safekern.cache.locks import key_lock

HAS_FORK = "fork" in multiprocessing.get_all_start_methods()
pytestmark = [pytest.mark.skipif(not HAS_FORK, reason="uses the fork start method"),
              pytest.mark.timeout(240, method="signal")]
ctx = multiprocessing.get_context("fork") if HAS_FORK else None
LIFETIME, WAIT = 200, 150


def fields(k):
    return {"kernel": f"k{k}", "source": f"kernel {k}"}


def _compile(log_path, k, seconds):
    def compile_fn():
        time.sleep(seconds)
        with open(log_path, "a") as log:
            log.write(f"{k} {time.time():.6f}\n")
        return payload("kernel", k)
    return compile_fn


def _threads_worker(path, log_path, kernels, threads, barrier, results):
    kc = KernelCache(Cache(path, lock_timeout=120), lock_timeout=120)
    barrier.wait(WAIT)
    oks = []

    def run():
        oks.append(all(kc.get_or_compile(fields(k), _compile(log_path, k, 0.05)) ==
                       payload("kernel", k) for k in range(kernels)))

    pool = [threading.Thread(target=run) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(WAIT)
    results.put(oks == [True] * threads)


def test_8_processes_of_8_threads_compile_each_kernel_once(tmp_path):
    path, log_path = str(tmp_path / "k.cache"), str(tmp_path / "compiles.log")
    with Children() as kids:
        barrier, results = ctx.Barrier(8), ctx.Queue()
        procs = [kids.process(ctx, _threads_worker, (path, log_path, 10, 8, barrier, results),
                              lifetime=LIFETIME) for _ in range(8)]
        oks = [results.get(timeout=WAIT) for _ in procs]
        for p in procs:
            p.join(WAIT)
            assert p.exitcode == 0
    assert all(oks)
    compiled = sorted(int(line.split()[0]) for line in open(log_path))
    assert compiled == list(range(10))


def _timed_worker(path, log_path, barrier, results):
    kc = KernelCache(Cache(path, lock_timeout=60), lock_timeout=60)
    barrier.wait(WAIT)
    got = kc.get_or_compile(fields(0), _compile(log_path, 0, 1.0))
    results.put((time.time(), got == payload("kernel", 0)))


def test_waiters_have_the_kernel_right_after_its_build(tmp_path):
    """Not after their timeout (60 s), not a poll interval of seconds later."""
    path, log_path = str(tmp_path / "k.cache"), str(tmp_path / "compiles.log")
    with Children() as kids:
        barrier, results = ctx.Barrier(8), ctx.Queue()
        procs = [kids.process(ctx, _timed_worker, (path, log_path, barrier, results),
                              lifetime=LIFETIME) for _ in range(8)]
        out = [results.get(timeout=WAIT) for _ in procs]
        for p in procs:
            p.join(WAIT)
    (line,) = open(log_path).read().splitlines()
    built = float(line.split()[1])
    assert all(ok for _, ok in out)
    assert max(done for done, _ in out) - built < 1.0


def test_a_thread_waiting_for_a_stuck_thread_compiles_after_the_timeout(tmp_path):
    path = str(tmp_path / "k.cache")
    kc = KernelCache(Cache(path), lock_timeout=0.3)
    release, started = threading.Event(), threading.Event()
    leader_got = []

    def stuck():
        started.set()
        release.wait(30)
        return b"from the stuck thread"

    leader = threading.Thread(target=lambda: leader_got.append(kc.get_or_compile(fields(0),
                                                                                 stuck)))
    leader.start()
    assert started.wait(10)
    waiter_got = []
    with cache_warnings() as caught:
        waiter = threading.Thread(target=lambda: waiter_got.append(
            kc.get_or_compile(fields(0), lambda: b"from the waiter")))
        start = time.monotonic()
        waiter.start()
        waiter.join(10)
        waited = time.monotonic() - start
    try:
        assert waiter_got == [b"from the waiter"] and 0.25 <= waited < 5
        assert len(caught) == 1 and "another thread" in str(caught[0].message)
        # The waiter did not take or release the key lock: the stuck thread's process still
        # holds it, so another process still waits for that build.
        digest = keys.digest(kc.key(fields(0)))
        with Children() as kids:
            pid = kids.fork(_expect_key_lock_held, path + ".keylock", digest, lifetime=30)
            assert kids.reap(pid, 30) == 0
    finally:
        release.set()
        leader.join(10)
    assert leader_got == [b"from the stuck thread"]


def _expect_key_lock_held(lock_path, digest):
    with key_lock(lock_path, digest, 0.2) as held:
        assert held is False
