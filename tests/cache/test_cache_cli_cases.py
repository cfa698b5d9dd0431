"""`python -m safekern cache` where a first-time user trips: a closed pipe, a file that is not a
cache, a directory the cache cannot be created in."""
import os
import subprocess
import sys

import pytest

from tests.support.cache_helpers import fresh_cache_warnings  # noqa: F401
from tests.cache.test_cache_environment import unwritable_dir
from safekern.cache import Cache
from safekern.cache.cli import main
from tests.support.settings import set_safekern

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cli(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "safekern", "cache", *args], cwd=ROOT,
                            env=dict(os.environ, **(env or {})), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_list_into_a_closed_pipe_ends_quietly(tmp_path):
    """`python -m safekern cache list | head -2`: the reader goes away after two lines."""
    path = tmp_path / "many.cache"
    cache = Cache(path)
    for i in range(1500):      # about 100 KiB of table: more than a pipe's buffer
        cache.put(b"key %d" % i, b"x", meta={"kernel": f"kernel_{i}", "backend": "opencl",
                                             "device": "pthread-cpu"})
    cache.close()
    proc = _cli("list", "--path", str(path))
    head = [proc.stdout.readline() for _ in range(2)]
    proc.stdout.close()          # what head does after its lines
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert head[0].split()[:2] == ["KERNEL", "BACKEND"] and "kernel_" in head[1]
    assert err == ""             # no BrokenPipeError traceback, no "Exception ignored"


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_list_of_a_file_that_is_not_a_cache_is_an_error(tmp_path, capsys, extra):
    other = tmp_path / "notes.txt"
    other.write_text("not a cache\n" * 20)
    assert main(["list", "--path", str(other), *extra]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert "not a safekern cache file (bad magic)" in out.err
    assert other.read_text() == "not a cache\n" * 20
    # The same words as info and verify.
    assert main(["verify", "--path", str(other)]) == 1
    assert "not a safekern cache file (bad magic)" in capsys.readouterr().out
    assert main(["info", "--path", str(other)]) == 0
    assert "not used: " in capsys.readouterr().out


def test_list_of_a_refused_file_says_why(tmp_path, capsys):
    path = tmp_path / "shared.cache"
    Cache(path).put(b"k", b"v", meta={"kernel": "k"})
    os.chmod(path, 0o666)
    assert main(["list", "--path", str(path)]) == 1
    assert "writable by group or others (mode 0666)" in capsys.readouterr().err


def test_list_without_a_file(tmp_path, capsys):
    assert main(["list", "--path", str(tmp_path / "none.cache")]) == 0
    out = capsys.readouterr().out
    assert "no cached kernels" in out and "(no file yet)" in out
    assert not (tmp_path / "none.cache").exists()


def test_info_in_a_read_only_directory_says_no_file_will_be_created(tmp_path, capsys):
    with unwritable_dir(tmp_path / "ro") as d:
        assert main(["info", "--path", str(d / "sub" / "k.cache")]) == 0
        out = capsys.readouterr().out
    assert "no file, and none will be created" in out and "is not writable" in out
    assert str(tmp_path / "ro") in out
    assert "created when the first kernel is compiled" not in out


def test_info_where_a_file_stands_in_for_the_directory(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["info", "--path", str(tmp_path / "file" / "k.cache")]) == 0
    out = capsys.readouterr().out
    assert f"none will be created: {tmp_path / 'file'} is not a directory" in out


def test_info_read_only_setting_without_a_file(tmp_path, monkeypatch, capsys):
    set_safekern(monkeypatch, CACHE_READONLY="1")
    assert main(["info", "--path", str(tmp_path / "k.cache")]) == 0
    assert "none will be created: SAFEKERN_CACHE_READONLY is set" in capsys.readouterr().out


def test_info_in_a_writable_directory_promises_the_file(tmp_path, capsys):
    assert main(["info", "--path", str(tmp_path / "new" / "k.cache")]) == 0
    assert "created when the first kernel is compiled" in capsys.readouterr().out
    # ...and it is: the store creates the directories and the file.
    Cache(tmp_path / "new" / "k.cache").close()
    assert (tmp_path / "new" / "k.cache").exists()
