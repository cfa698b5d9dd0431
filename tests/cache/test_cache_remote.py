"""The remote tier (Redis): lookup order, copies into the local file, signing and trust,
damaged entries, configuration, and one Redis lookup per kernel for a whole node.

Every test talks to its own redis-server on 127.0.0.1 (tests/support/cache_remote_helpers.py). A "node"
here is a KernelCache with a local file of its own and a RemoteTier of its own, as a new process
on another machine would have."""
import hashlib
import logging
import multiprocessing
import os
import time

import pytest

from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings  # noqa: F401
from tests.support.cache_remote_helpers import needs_redis, redis_server, \
    settle_sockets  # noqa: F401
from tests.support.child_procs import Children
from safekern.cache import Cache, keys, remote
from safekern.cache.kernels import KernelCache, get_kernel_cache
from safekern.cache.remote import RemoteTier, pack_entry, redis_key, unpack_entry
from tests.support.settings import set_safekern

pytestmark = needs_redis + [pytest.mark.timeout(120, method="signal")]

SECRET = "a shared secret of the test nodes"
OTHER_SECRET = "somebody else's secret, not ours"


class Compiler:
    def __init__(self):
        self.calls = []

    def __call__(self, name):
        def compile_fn():
            self.calls.append(name)
            return b"binary of " + name.encode()
        return compile_fn


def node(tmp_path, server, name, *, secret=SECRET, trust=False, timeout=2.0):
    """A KernelCache as a new process on another node has it (timeout: generous, these tests
    are not about time)."""
    tier = RemoteTier(server.url(), secret=secret, trust=trust, timeout=timeout)
    return KernelCache(Cache(str(tmp_path / f"{name}.cache")), remote=tier)


def fields(name):
    return {"kernel": name, "source": f"void {name}() {{}}", "backend": "opencl"}


def remote_value(server, kc, name) -> bytes | None:
    return server.client().get(redis_key(keys.digest(kc.key(fields(name)))))


def put_value(server, kc, name, value: bytes) -> None:
    server.client().set(redis_key(keys.digest(kc.key(fields(name)))), value)


# -- lookup order ------------------------------------------------------------------------------

def test_a_compile_goes_to_both_tiers_and_a_new_node_loads_it_from_redis(tmp_path,
                                                                        redis_server):
    compiler = Compiler()
    a = node(tmp_path, redis_server, "a")
    assert a.get_or_compile(fields("k"), compiler("k"), describe="kernel k",
                            meta={"kernel": "k", "backend": "opencl"}) == b"binary of k"
    assert compiler.calls == ["k"] and a.remote.counts["puts"] == 1
    key = a.key(fields("k"))
    assert Cache(a.path).get(key) == b"binary of k"
    stored_key, meta, payload, signed = unpack_entry(remote_value(redis_server, a, "k"), key,
                                                     SECRET.encode())
    assert (stored_key, payload, signed) == (key, b"binary of k", True)
    assert meta["kernel"] == "k" and meta["describe"] == "kernel k"

    b = node(tmp_path, redis_server, "b")        # a new node: empty local file
    assert b.get_or_compile(fields("k"), compiler("k"), describe="kernel k") == b"binary of k"
    assert compiler.calls == ["k"] and b.remote.counts["hits"] == 1
    (entry,) = Cache(b.path).entries()            # copied into b's local file, with its listing
    assert entry.meta["kernel"] == "k" and entry.meta["backend"] == "opencl"
    assert Cache(b.path).get(key) == b"binary of k"


def test_a_local_hit_never_asks_redis(tmp_path, redis_server):
    a = node(tmp_path, redis_server, "a")
    a.get_or_compile(fields("k"), Compiler()("k"))
    redis_server.pause()         # a stopped server would cost the timeout if it were asked
    try:
        again = node(tmp_path, redis_server, "a")      # a new process on the same node
        with cache_warnings() as caught:
            start = time.monotonic()
            assert again.get_or_compile(fields("k"), Compiler()("k")) == b"binary of k"
            assert again.lookup(fields("k")) == b"binary of k"
            took = time.monotonic() - start
        assert again.remote.counts == dict.fromkeys(again.remote.counts, 0)
        assert not caught and took < 1.0
    finally:
        redis_server.resume()


def test_lookup_consults_redis_and_copies_the_hit(tmp_path, redis_server):
    node(tmp_path, redis_server, "a").get_or_compile(fields("k"), Compiler()("k"))
    b = node(tmp_path, redis_server, "b")
    assert b.lookup(fields("missing")) is None
    assert b.lookup(fields("k")) == b"binary of k"
    assert Cache(b.path).get(b.key(fields("k"))) == b"binary of k"


def test_a_remote_miss_is_asked_once_then_compiled_and_stored(tmp_path, redis_server):
    """lookup() then get_or_compile() of the same kernel (numba's path) ask Redis once."""
    b = node(tmp_path, redis_server, "b")
    before = redis_server.get_calls()
    assert b.lookup(fields("k")) is None
    assert b.get_or_compile(fields("k"), Compiler()("k")) == b"binary of k"
    assert redis_server.get_calls() - before == 1
    assert remote_value(redis_server, b, "k") is not None


def test_a_readonly_local_file_still_gets_remote_hits(tmp_path, redis_server):
    node(tmp_path, redis_server, "a").get_or_compile(fields("k"), Compiler()("k"))
    Cache(str(tmp_path / "ro.cache"))                 # an empty, pre-seeded file
    tier = RemoteTier(redis_server.url(), secret=SECRET, timeout=2.0)
    ro = KernelCache(Cache(str(tmp_path / "ro.cache"), readonly=True), remote=tier)
    compiler = Compiler()
    assert ro.get_or_compile(fields("k"), compiler("k")) == b"binary of k"
    assert ro.get_or_compile(fields("n"), compiler("n")) == b"binary of n"
    assert compiler.calls == ["n"] and len(Cache(str(tmp_path / "ro.cache"))) == 0
    assert remote_value(redis_server, ro, "n") is not None    # the compile went to Redis


def test_a_binary_the_driver_rejects_is_compiled_again_and_replaced_in_redis(tmp_path,
                                                                            redis_server):
    a = node(tmp_path, redis_server, "a")
    a.get_or_compile(fields("k"), lambda: b"refused by this driver")
    b = node(tmp_path, redis_server, "b")
    assert b.lookup(fields("k")) == b"refused by this driver"
    b.reject(fields("k"), reason="the driver refused it")
    compiler = Compiler()
    assert b.get_or_compile(fields("k"), compiler("k")) == b"binary of k"
    assert compiler.calls == ["k"]
    _, _, payload, _ = unpack_entry(remote_value(redis_server, b, "k"), None, SECRET.encode())
    assert payload == b"binary of k"


# -- signing and trust ---------------------------------------------------------------------------

def _tampered_cases(kc, name):
    key = kc.key(fields(name))
    good = pack_entry(key, b"{}", b"binary of " + name.encode(), SECRET.encode())
    evil = b"a binary chosen by whoever can write to Redis"
    other_key = kc.key(fields("another kernel"))
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 1
    return {
        "unsigned": pack_entry(key, b"{}", evil, None),
        "bad signature": pack_entry(key, b"{}", evil, OTHER_SECRET.encode()),
        "damaged": bytes(flipped),
        "another key": pack_entry(other_key, b"{}", evil, SECRET.encode()),
    }


@pytest.mark.parametrize("kind", ["unsigned", "bad signature", "damaged", "another key"])
def test_a_tampered_entry_is_a_miss_with_one_warning(tmp_path, redis_server, kind):
    b = node(tmp_path, redis_server, "b")
    for name in ("k1", "k2", "k3"):
        put_value(redis_server, b, name, _tampered_cases(b, name)[kind])
    compiler = Compiler()
    with cache_warnings() as caught:
        for name in ("k1", "k2", "k3"):
            assert b.get_or_compile(fields(name), compiler(name)) == b"binary of " + \
                name.encode()
    assert compiler.calls == ["k1", "k2", "k3"] and b.remote.counts["rejected"] == 3
    assert len(caught) == 1 and f"({kind}: " in str(caught[0].message)
    assert SECRET not in str(caught[0].message)
    # The compile replaced each bad entry with a good, signed one.
    for name in ("k1", "k2", "k3"):
        _, _, payload, signed = unpack_entry(remote_value(redis_server, b, name),
                                             b.key(fields(name)), SECRET.encode())
        assert signed and payload == b"binary of " + name.encode()


def test_nodes_with_another_secret_do_not_use_each_others_entries(tmp_path, redis_server):
    node(tmp_path, redis_server, "a").get_or_compile(fields("k"), Compiler()("k"))
    stranger = node(tmp_path, redis_server, "s", secret=OTHER_SECRET)
    compiler = Compiler()
    with cache_warnings() as caught:
        stranger.get_or_compile(fields("k"), compiler("k"))
    assert compiler.calls == ["k"] and "bad signature" in str(caught[0].message)


def test_without_a_secret_trust_uses_unsigned_and_signed_entries(tmp_path, redis_server):
    node(tmp_path, redis_server, "a", secret=None, trust=True).get_or_compile(
        fields("plain"), Compiler()("plain"))
    node(tmp_path, redis_server, "b").get_or_compile(fields("signed"), Compiler()("signed"))
    assert unpack_entry(remote_value(redis_server, KernelCache(Cache(str(tmp_path / "x"))),
                                     "plain"), None, None)[3] is False
    trusting = node(tmp_path, redis_server, "c", secret=None, trust=True)
    compiler = Compiler()
    assert trusting.get_or_compile(fields("plain"), compiler("plain")) == b"binary of plain"
    assert trusting.get_or_compile(fields("signed"), compiler("signed")) == b"binary of signed"
    assert compiler.calls == []
    # ... but even a trusting node checks integrity: a damaged entry is a miss.
    value = bytearray(remote_value(redis_server, trusting, "plain"))
    value[-20] ^= 0xFF
    put_value(redis_server, trusting, "plain", bytes(value))
    with cache_warnings() as caught:
        again = node(tmp_path, redis_server, "d", secret=None, trust=True)
        assert again.get_or_compile(fields("plain"), compiler("plain")) == b"binary of plain"
    assert compiler.calls == ["plain"] and "damaged" in str(caught[0].message)


@pytest.mark.parametrize("value", [b"", b"garbage", b"SKRE" + bytes(100), b"x" * 5000],
                         ids=["empty", "garbage", "zeros", "long"])
def test_values_that_are_no_entry_are_misses(tmp_path, redis_server, value):
    b = node(tmp_path, redis_server, "b")
    put_value(redis_server, b, "k", value)
    compiler = Compiler()
    with cache_warnings() as caught:
        assert b.get_or_compile(fields("k"), compiler("k")) == b"binary of k"
    assert compiler.calls == ["k"] and "damaged" in str(caught[0].message)


@pytest.mark.parametrize("cut", [1, 16, 32, 100])
def test_a_truncated_entry_is_a_miss(tmp_path, redis_server, cut):
    a = node(tmp_path, redis_server, "a")
    a.get_or_compile(fields("k"), lambda: b"binary of k" * 10)
    value = remote_value(redis_server, a, "k")
    put_value(redis_server, a, "k", value[:-cut])
    compiler = Compiler()
    b = node(tmp_path, redis_server, "b")
    with cache_warnings() as caught:
        assert b.get_or_compile(fields("k"), compiler("k")) == b"binary of k"
    assert compiler.calls == ["k"] and "(damaged: " in str(caught[0].message)


def test_entry_format_round_trip_and_checks():
    key, meta, payload = b"key material", b'{"kernel": "k"}', bytes(range(256)) * 4
    for secret in (None, SECRET.encode()):
        entry = pack_entry(key, meta, payload, secret)
        assert unpack_entry(entry, key, secret) == (key, {"kernel": "k"}, payload,
                                                    secret is not None)
    signed = pack_entry(key, meta, payload, SECRET.encode())
    assert unpack_entry(signed, key, None)[2] == payload          # trust mode: not checkable
    with pytest.raises(remote.EntryRejected, match="bad signature"):
        unpack_entry(signed, key, OTHER_SECRET.encode())
    with pytest.raises(remote.EntryRejected, match="another key"):
        unpack_entry(signed, b"other key", SECRET.encode())
    # The signature covers the flags: dropping it and clearing the flag makes it unsigned.
    stripped = bytearray(signed[:-remote.SIGNATURE_SIZE])
    stripped[5] = 0
    with pytest.raises(remote.EntryRejected, match="damaged|unsigned"):
        unpack_entry(bytes(stripped), key, SECRET.encode())
    assert redis_key(hashlib.sha256(key).digest()).startswith("safekern:v1:")


# -- configuration ---------------------------------------------------------------------------------

@pytest.fixture
def remote_env(monkeypatch):
    unset = {f"CACHE_REMOTE{name}": None for name in ("", "_KEY", "_TRUST", "_TIMEOUT")}

    def setenv(**values):
        return set_safekern(monkeypatch, **{**unset, **{f"CACHE_REMOTE{name}": value
                                                         for name, value in values.items()}})
    yield setenv
    set_safekern(monkeypatch, **unset)


def test_configuration_builds_the_tier(redis_server, remote_env):
    remote_env(**{"": redis_server.url(3), "_KEY": SECRET, "_TIMEOUT": "0.25"})
    kc = get_kernel_cache()
    assert kc.remote is not None and kc.remote.signed and kc.remote.timeout == 0.25
    kc.get_or_compile(fields("k"), Compiler()("k"))
    assert redis_server.client(3).get(redis_key(keys.digest(kc.key(fields("k")))))
    remote_env()
    assert get_kernel_cache().remote is None


def test_without_a_secret_or_trust_the_tier_is_not_used(redis_server, remote_env):
    remote_env(**{"": redis_server.url()})
    with cache_warnings() as caught:
        for _ in range(3):
            kc = get_kernel_cache()
            assert kc is not None and kc.remote is None       # the local file still works
            kc.get_or_compile(fields("k"), Compiler()("k"))
    assert len(caught) == 1 and "SAFEKERN_CACHE_REMOTE_KEY" in str(caught[0].message)
    assert redis_server.client().dbsize() == 0
    remote_env(**{"": redis_server.url(), "_TRUST": "1"})
    assert get_kernel_cache().remote is not None and not get_kernel_cache().remote.signed


@pytest.mark.parametrize("name,value,expected", [
    ("", "http://127.0.0.1:6379", "expected redis://"),
    ("", "redis://127.0.0.1:99999/0", "Port out of range"),
    ("", "redis://127.0.0.1:6379/zero", "the database must be a number"),
    ("_TRUST", "perhaps", "expected 0 or 1"),
    ("_TIMEOUT", "0", "expected a positive number"),
    ("_TIMEOUT", "-1", "expected a finite, non-negative"),
    ("_TIMEOUT", "soon", "expected a number of seconds"),
    ("_KEY", "short", "too short"),
])
def test_a_bad_remote_setting_is_one_warning_and_the_local_file_is_used(remote_env, name,
                                                                         value, expected):
    settings = {"": "redis://127.0.0.1:6379/0", "_TRUST": "1", name: value}
    cfg = remote_env(**settings)
    assert expected in cfg.cache_remote_problem and cfg.cache_problem is None
    with cache_warnings() as caught:
        for _ in range(2):
            kc = get_kernel_cache()
            assert kc is not None and kc.remote is None
            assert kc.get_or_compile(fields("k"), Compiler()("k")) == b"binary of k"
    assert len(caught) == 1 and f"SAFEKERN_CACHE_REMOTE{name}" in str(caught[0].message)
    assert "remote tier not used" in str(caught[0].message)


def test_the_secret_is_never_shown(redis_server, remote_env, capsys, caplog):
    cfg = remote_env(**{"": redis_server.url(), "_KEY": SECRET})
    assert SECRET not in repr(cfg) and SECRET not in repr(get_kernel_cache().remote)
    caplog.set_level(logging.DEBUG, logger="safekern")
    b = get_kernel_cache()
    put_value(redis_server, b, "k", pack_entry(b.key(fields("k")), b"{}", b"x",
                                               OTHER_SECRET.encode()))
    with cache_warnings() as caught:
        b.get_or_compile(fields("k"), Compiler()("k"))
    from safekern.cache.cli import main

    assert main(["info"]) == 0 and main(["list", "--remote"]) == 0
    remote_env(**{"": redis_server.url(), "_KEY": SECRET[:10]})      # too short
    with cache_warnings() as more:
        get_kernel_cache()
    shown = capsys.readouterr()
    everything = "\n".join([shown.out, shown.err, caplog.text] +
                           [str(w.message) for w in caught + more])
    assert "bad signature" in everything and "too short" in everything
    assert SECRET not in everything and SECRET[:10] not in everything


def test_a_password_in_the_url_is_not_shown(remote_env):
    cfg = remote_env(**{"": "redis://:hunter2hunter2@127.0.0.1:1/x", "_TRUST": "1"})
    assert "hunter2" not in cfg.cache_remote_problem and "***" in cfg.cache_remote_problem
    tier = RemoteTier("redis://user:hunter2hunter2@127.0.0.1:1/0", trust=True)
    assert "hunter2" not in repr(tier) and "hunter2" not in tier.shown_url


def test_without_the_redis_client_the_tier_is_not_used(redis_server, remote_env, monkeypatch):
    monkeypatch.setattr(remote, "client_available", lambda: False)
    remote_env(**{"": redis_server.url(), "_KEY": SECRET})
    with cache_warnings() as caught:
        kc = get_kernel_cache()
    assert kc is not None and kc.remote is None
    assert len(caught) == 1 and "safekern[redis]" in str(caught[0].message)


# -- a whole node at once: one Redis lookup per kernel ---------------------------------------------

HAS_FORK = "fork" in multiprocessing.get_all_start_methods()
KERNELS = 10


def _new_node_worker(path, url, barrier, results):
    kc = KernelCache(Cache(path, lock_timeout=60),
                     remote=RemoteTier(url, secret=SECRET, timeout=5.0), lock_timeout=60)
    barrier.wait(60)
    # numba's paths: a lookup (a rewrite, a signature) for some kernels, get_or_compile for all
    got = [(kc.lookup(fields(f"k{i}")) if i % 2 else None) or
           kc.get_or_compile(fields(f"k{i}"), lambda: b"compiled on the new node")
           for i in range(KERNELS)]
    results.put(got == [b"binary of k%d" % i for i in range(KERNELS)])


@pytest.mark.skipif(not HAS_FORK, reason="uses the fork start method")
def test_eight_processes_of_a_new_node_ask_redis_once_per_kernel(tmp_path, redis_server):
    warm = node(tmp_path, redis_server, "warm")
    for i in range(KERNELS):
        warm.get_or_compile(fields(f"k{i}"), Compiler()(f"k{i}"))
    before = redis_server.get_calls()
    ctx = multiprocessing.get_context("fork")
    path = str(tmp_path / "new-node.cache")
    settle_sockets()
    with Children() as kids:
        barrier, results = ctx.Barrier(8), ctx.Queue()
        procs = [kids.process(ctx, _new_node_worker, (path, redis_server.url(), barrier,
                                                      results), lifetime=100)
                 for _ in range(8)]
        oks = [results.get(timeout=90) for _ in procs]
        for p in procs:
            p.join(30)
            assert p.exitcode == 0
    assert all(oks)
    assert redis_server.get_calls() - before == KERNELS
    assert len(Cache(path)) == KERNELS


@pytest.mark.timeout(300)
def test_the_suite_never_uses_the_callers_remote_tier(tmp_path, redis_server):
    """conftest.py unsets SAFEKERN_CACHE_REMOTE*: a developer's shared Redis stays untouched by
    the tests (here a test that compiles through get_kernel_cache, in a child pytest)."""
    import subprocess
    import sys
    import textwrap

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "test_compile.py").write_text(textwrap.dedent("""
        import os
        from safekern.cache.kernels import get_kernel_cache

        def test_compile():
            assert "SAFEKERN_CACHE_REMOTE" not in os.environ
            kc = get_kernel_cache()
            assert kc.remote is None
            kc.get_or_compile({"kernel": "k"}, lambda: b"binary")
    """))
    env = dict(os.environ, PYTHONPATH=root, HOME=str(tmp_path),
               SAFEKERN_CACHE_REMOTE=redis_server.url(), SAFEKERN_CACHE_REMOTE_TRUST="1",
               SAFEKERN_CACHE_REMOTE_KEY=SECRET)
    env.pop("SAFEKERN_CACHE", None)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-p", "conftest", str(tmp_path / "t")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=240)
    assert "1 passed" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    assert redis_server.client().dbsize() == 0
