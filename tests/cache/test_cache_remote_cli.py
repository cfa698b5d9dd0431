"""`python -m safekern cache` and the remote tier: info shows it, list --remote lists its entries
and whether each would be used, clear --remote removes safekern's entries (and nothing else)."""
import json

import pytest

from tests.support.cache_helpers import fresh_cache_warnings  # noqa: F401
from tests.support.cache_remote_helpers import free_port, needs_redis, redis_server  # noqa: F401
from safekern import config
from safekern.cache import Cache, keys
from safekern.cache.cli import main
from safekern.cache.kernels import KernelCache, get_kernel_cache
from safekern.cache.remote import RemoteTier, pack_entry, redis_key
from tests.support.settings import set_safekern

pytestmark = needs_redis + [pytest.mark.timeout(120, method="signal")]

SECRET = "a shared secret of the test nodes"


@pytest.fixture
def remote_env(monkeypatch, redis_server):
    def setenv(url=None, **values):
        unset = {f"CACHE_REMOTE_{name}": None for name in ("KEY", "TRUST", "TIMEOUT")}
        return set_safekern(monkeypatch, CACHE_REMOTE=url or redis_server.url(), **{
            **unset, **{f"CACHE_REMOTE_{name}": value for name, value in values.items()}})
    yield setenv
    set_safekern(monkeypatch, **{f"CACHE_REMOTE{name}": None
                                 for name in ("", "_KEY", "_TRUST", "_TIMEOUT")})


@pytest.fixture
def filled(tmp_path, redis_server, remote_env):
    remote_env(KEY=SECRET)
    kc = get_kernel_cache()
    kc.get_or_compile({"kernel": "stencil"}, lambda: b"s" * 3000, describe="opencl kernel",
                      meta={"kernel": "stencil", "backend": "opencl", "device": "pthread-cpu"})
    kc.get_or_compile({"kernel": "saxpy"}, lambda: b"x" * 100, describe="numba kernel",
                      meta={"kernel": "saxpy", "backend": "numba-cuda", "device": "H200"})
    bad = kc.key({"kernel": "evil"})
    redis_server.client().set(redis_key(keys.digest(bad)),
                              pack_entry(bad, b'{"kernel": "evil"}', b"!", b"not our secret!!"))
    redis_server.client().set("someone-elses-key", b"keep me")
    return kc


def test_info_shows_the_remote_tier(filled, redis_server, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert f"remote:   {redis_server.url()}" in out
    assert "entries signed and checked with SAFEKERN_CACHE_REMOTE_KEY" in out
    assert "3 entries" in out and "no maxmemory" in out and SECRET not in out


def test_info_says_why_kernels_do_not_use_it(redis_server, remote_env, capsys):
    remote_env()
    assert main(["info"]) == 0
    assert "not used by kernels: neither SAFEKERN_CACHE_REMOTE_KEY" in capsys.readouterr().out
    remote_env(url=f"redis://127.0.0.1:{free_port()}/0", TRUST="1")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "unsigned entries trusted" in out and "unreachable: ConnectionError" in out
    remote_env(TIMEOUT="never")
    assert main(["info"]) == 0
    assert "invalid configuration: SAFEKERN_CACHE_REMOTE_TIMEOUT='never'" in \
        capsys.readouterr().out


def test_list_remote_names_each_entry_and_whether_it_would_be_used(filled, capsys):
    assert main(["list", "--remote"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["KERNEL", "BACKEND", "DEVICE", "SIZE", "STATE", "KEY"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == {"stencil", "saxpy", "evil"}
    assert "signed" in rows["stencil"] and "2.9 KiB" in rows["stencil"]
    assert "bad signature" in rows["evil"]
    assert main(["list", "--remote", "--json"]) == 0
    data = {r["kernel"]: r for r in json.loads(capsys.readouterr().out)}
    assert data["saxpy"]["state"] == "signed" and data["saxpy"]["device"] == "H200"
    assert len(data["saxpy"]["key"]) == 64


def test_list_remote_without_a_tier_is_an_error(capsys, monkeypatch):
    set_safekern(monkeypatch, CACHE_REMOTE=None)
    assert main(["list", "--remote"]) == 1
    assert "no remote tier is configured" in capsys.readouterr().err


def test_clear_remote_removes_safekerns_entries_only(filled, redis_server, capsys):
    assert main(["clear"]) == 0                      # the local file only
    assert redis_server.client().dbsize() == 4
    assert len(Cache(filled.path)) == 0
    assert main(["clear", "--remote"]) == 0
    assert "(3 entries)" in capsys.readouterr().out
    assert redis_server.client().keys("*") == [b"someone-elses-key"]


def test_clear_remote_when_unreachable_fails(tmp_path, remote_env, capsys):
    remote_env(url=f"redis://127.0.0.1:{free_port()}/0", KEY=SECRET)
    KernelCache(Cache(str(tmp_path / "x.cache")), remote=RemoteTier(
        config.get().cache_remote, secret=SECRET))
    assert main(["clear", "--remote"]) == 1
    assert "not clearing the remote tier" in capsys.readouterr().err
