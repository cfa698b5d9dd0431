"""A hostile environment: unwritable directory, no HOME, a full disk, a file someone else owns
or can write. In every case the kernel still runs (compiled, uncached) and the user sees exactly
one CacheWarning however many kernels are compiled.

How each condition is produced, honestly:
- unwritable directory: chmod 0555 when not root; as root (which ignores modes) a tmpfs mounted
  read-only -- skipped when this process cannot mount.
- missing HOME: HOME and XDG_CACHE_HOME removed, and the passwd lookup that expanduser falls back
  on made to fail (a container running under an arbitrary uid has no passwd entry).
- disk full: (a) the store's write function patched to write part of a record and then fail
  with ENOSPC, always run; (b) a real, tiny tmpfs filled up, as root only.
- another owner: as root, chown to uid 65534; otherwise the store's idea of the current uid is
  patched (a non-root process cannot give a file away).
"""
import contextlib
import errno
import os
import subprocess
import sys

import pytest

from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings  # noqa: F401
from safekern.cache import Cache, files, trust
from safekern.cache.kernels import get_kernel_cache, kernel_key
from tests.support.settings import reload_settings, set_safekern

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def run_kernels(n=3):
    """What a backend does: use the cache when there is one, else compile. Returns payloads."""
    out = []
    for i in range(n):
        fields = {"kernel": f"k{i}", "source": "..."}
        compile_fn = lambda i=i: b"binary %d" % i  # noqa: E731
        kc = get_kernel_cache()
        out.append(kc.get_or_compile(fields, compile_fn) if kc else compile_fn())
    return out


def expect_one_warning(match, n=3):
    with cache_warnings() as caught:
        assert run_kernels(n) == [b"binary %d" % i for i in range(n)]
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert match in str(caught[0].message), str(caught[0].message)
    return str(caught[0].message)


def use_cache_file(monkeypatch, path, **env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    set_safekern(monkeypatch, CACHE=str(path))


def _mount_tmpfs(where, options):
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


@contextlib.contextmanager
def unwritable_dir(where, seed=None):
    """`where` as a directory this process cannot write; `seed(where)` fills it first."""
    if not IS_ROOT:
        where.mkdir()
        if seed:
            seed(where)
        os.chmod(where, 0o555)
        try:
            yield where
        finally:
            os.chmod(where, 0o755)
        return
    _mount_tmpfs(where, "size=1m,mode=0755")
    try:
        if seed:
            seed(where)
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_unwritable_directory(tmp_path, monkeypatch):
    with unwritable_dir(tmp_path / "ro") as d:
        use_cache_file(monkeypatch, d / "k.cache")
        expect_one_warning("cannot create")
        assert not os.path.exists(d / "k.cache")


def test_unwritable_directory_with_a_cache_file_reads_it(tmp_path, monkeypatch):
    def seed(d):
        c = Cache(str(d / "k.cache"))
        c.put(_key("k0"), b"binary 0 (cached)")
        c.close()
        os.chmod(d / "k.cache", 0o400)     # (as root, the read-only mount is what counts)

    with unwritable_dir(tmp_path / "ro", seed) as d:
        use_cache_file(monkeypatch, d / "k.cache")
        with cache_warnings() as caught:
            got = run_kernels()
        assert got == [b"binary 0 (cached)", b"binary 1", b"binary 2"]
        assert len(caught) == 1


def _key(kernel):
    return kernel_key({"kernel": kernel, "source": "..."})


def test_missing_home_without_passwd_entry(monkeypatch):
    import pwd

    monkeypatch.delenv("SAFEKERN_CACHE")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_entry(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    reload_settings()
    message = expect_one_warning("no user cache directory")
    assert "SAFEKERN_CACHE" in message
    assert not os.path.exists("~")


def test_missing_home_uses_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    set_safekern(monkeypatch, CACHE=None)
    with cache_warnings() as caught:
        run_kernels()
    assert not caught and get_kernel_cache().path.startswith(str(tmp_path))


def _fail_after_half(real):
    def pwrite_all(fd, data, offset):
        real(fd, data[:len(data) // 2], offset)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return pwrite_all


def test_disk_full_on_append_simulated(monkeypatch):
    kc = get_kernel_cache()
    kc.get_or_compile({"kernel": "k0", "source": "..."}, lambda: b"binary 0")
    size = os.path.getsize(kc.path)
    monkeypatch.setattr(files, "pwrite_all", _fail_after_half(files.pwrite_all))
    with cache_warnings() as caught:
        assert run_kernels(4) == [b"binary %d" % i for i in range(4)]
    assert len(caught) == 1 and "disk is full" in str(caught[0].message)
    assert os.path.getsize(kc.path) == size          # the half-written record was cut off
    report = Cache(kc.path).verify()
    assert report.ok and report.torn_tail == 0 and report.live == 1


def test_disk_full_during_compaction_simulated(monkeypatch, tmp_path):
    path = str(tmp_path / "c.cache")
    c = Cache(path, max_bytes=8000)
    for i in range(6):
        assert c.put(b"k%d" % i, bytes(1000))
    before = open(path, "rb").read()
    monkeypatch.setattr(files, "pwrite_all", _fail_after_half(files.pwrite_all))
    with cache_warnings() as caught:
        assert not c.put(b"k-new", bytes(2000))      # needs a compaction, which fails
    assert len(caught) == 1 and "disk is full" in str(caught[0].message)
    assert open(path, "rb").read() == before
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


@pytest.mark.skipif(not IS_ROOT, reason="mounting a tmpfs needs root")
def test_disk_full_on_a_real_tiny_tmpfs(tmp_path, monkeypatch):
    d = tmp_path / "tiny"
    _mount_tmpfs(d, "size=64k")
    try:
        use_cache_file(monkeypatch, d / "k.cache")
        kc = get_kernel_cache()
        stored = []
        with cache_warnings() as caught:
            for i in range(40):            # 40 x 4 KiB > 64 KiB
                fields = {"kernel": f"big{i}"}
                assert kc.get_or_compile(fields, lambda i=i: bytes([i]) * 4096) == \
                    bytes([i]) * 4096
                stored.append(fields)
        assert len(caught) == 1 and "disk is full" in str(caught[0].message)
        report = Cache(kc.path).verify()
        assert report.ok and report.torn_tail == 0 and 0 < report.live < 40
        # Everything that did get in is intact.
        fresh = Cache(kc.path)
        hits = [fresh.get(kc.key(f)) for f in stored]
        assert all(h is None or h == bytes([i]) * 4096 for i, h in enumerate(hits))
    finally:
        subprocess.run(["umount", "-l", str(d)], check=False)


@pytest.mark.skipif(not IS_ROOT, reason="mounting a tmpfs needs root")
def test_disk_full_before_the_file_exists(tmp_path, monkeypatch):
    d = tmp_path / "full"
    _mount_tmpfs(d, "size=16k")
    try:
        with open(d / "filler", "wb") as f:
            with contextlib.suppress(OSError):
                f.write(bytes(1 << 20))
        use_cache_file(monkeypatch, d / "k.cache")
        expect_one_warning("cannot create")
    finally:
        subprocess.run(["umount", "-l", str(d)], check=False)


def _other_owner(path, monkeypatch):
    if IS_ROOT:
        os.chown(path, 65534, 65534)
    else:
        monkeypatch.setattr(trust, "_euid", lambda: os.getuid() + 1)


def test_a_file_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "k.cache"
    Cache(str(path)).put(_key("k0"), b"planted binary")
    before = path.read_bytes()
    _other_owner(path, monkeypatch)
    use_cache_file(monkeypatch, path)
    message = expect_one_warning("owned by another user")
    assert "kernels run uncached" in message
    assert path.read_bytes() == before


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666])
def test_a_group_or_world_writable_file_is_refused(tmp_path, monkeypatch, mode):
    path = tmp_path / "k.cache"
    Cache(str(path)).put(_key("k0"), b"planted binary")
    os.chmod(path, mode)
    use_cache_file(monkeypatch, path)
    expect_one_warning("writable by group or others")
    assert path.read_bytes().count(b"planted binary") == 1


def test_read_only_shared_file_may_belong_to_the_shared_owner(tmp_path, monkeypatch):
    path = tmp_path / "shared.cache"
    Cache(str(path)).put(_key("k0"), b"binary 0 (shared)")
    os.chmod(path, 0o644)
    # The file's owner plays the shared owner (root in real life); this process is someone else.
    monkeypatch.setattr(trust, "_SHARED_OWNER", os.stat(path).st_uid)
    monkeypatch.setattr(trust, "_euid", lambda: os.stat(path).st_uid + 1)
    use_cache_file(monkeypatch, path, SAFEKERN_CACHE_READONLY="1")
    before = path.read_bytes()
    with cache_warnings() as caught:
        assert run_kernels() == [b"binary 0 (shared)", b"binary 1", b"binary 2"]
    assert not caught and path.read_bytes() == before
    # Read-write use of the same file is refused.
    use_cache_file(monkeypatch, path, SAFEKERN_CACHE_READONLY="0")
    expect_one_warning("owned by another user")


def test_read_only_without_the_file(tmp_path, monkeypatch):
    use_cache_file(monkeypatch, tmp_path / "absent.cache", SAFEKERN_CACHE_READONLY="1")
    expect_one_warning("does not exist")
    assert not os.path.exists(tmp_path / "absent.cache")


def test_cache_off_creates_nothing_and_says_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    use_cache_file(monkeypatch, "off")
    with cache_warnings() as caught:
        assert run_kernels() == [b"binary 0", b"binary 1", b"binary 2"]
    assert not caught and not os.path.exists(tmp_path / "xdg")


@pytest.mark.parametrize("make", ["directory", "fifo"])
def test_something_else_where_the_file_should_be(tmp_path, monkeypatch, make):
    path = tmp_path / "k.cache"
    if make == "directory":
        path.mkdir()
    elif hasattr(os, "mkfifo"):
        os.mkfifo(path)          # opening it for reading would block forever
    else:
        pytest.skip("no FIFOs here")
    use_cache_file(monkeypatch, path)
    expect_one_warning("not a regular file")


def test_warning_reaches_a_plain_python_process(tmp_path):
    """Outside pytest the warning is printed once on stderr and the program succeeds."""
    d = tmp_path / "k.cache"
    d.write_bytes(b"not a cache")
    code = ("from safekern.cache.kernels import get_kernel_cache as g\n"
            "for i in range(3):\n"
            "    kc = g()\n"
            "    assert kc is None\n"
            "print('ran')\n")
    env = dict(os.environ, SAFEKERN_CACHE=str(d), PYTHONWARNINGS="default")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))), timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ran", out.stderr
    assert out.stderr.count("CacheWarning") == 1 and "not a safekern cache file" in out.stderr
    assert d.read_bytes() == b"not a cache"
