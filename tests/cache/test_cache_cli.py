"""`python -m safekern cache info|list|verify|clear`."""
import json
import os
import subprocess
import sys

import pytest

from tests.support.cache_helpers import fresh_cache_warnings  # noqa: F401
from safekern.cache import Cache
from safekern.cache import format as fmt
from safekern.cache.cli import main
from safekern.cache.kernels import get_kernel_cache
from tests.support.settings import set_safekern

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def filled():
    kc = get_kernel_cache()
    kc.get_or_compile({"kernel": "stencil"}, lambda: b"s" * 3000, describe="opencl kernel",
                      meta={"kernel": "stencil", "backend": "opencl", "device": "pthread-cpu"})
    kc.get_or_compile({"kernel": "saxpy"}, lambda: b"x" * 100, describe="numba kernel 'saxpy'",
                      meta={"kernel": "saxpy", "backend": "numba-cuda", "device": "NVIDIA H200"})
    return kc.path


def test_info(filled, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert f"path:     {filled}" in out and "status:   read-write" in out
    assert "entries:  2" in out and "of a 1.0 GiB bound" in out and "version 1" in out


def test_info_without_a_file(tmp_path, capsys):
    assert main(["info", "--path", str(tmp_path / "none.cache")]) == 0
    assert "no file yet" in capsys.readouterr().out
    assert not os.path.exists(tmp_path / "none.cache")


def test_info_names_a_refused_file(filled, capsys):
    os.chmod(filled, 0o666)
    assert main(["info"]) == 0
    assert "not used: " in capsys.readouterr().out


def test_list_table_and_json(filled, capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["KERNEL", "BACKEND", "DEVICE", "SIZE", "LAST", "USED", "KEY"]
    body = "\n".join(lines[1:])
    assert "stencil" in body and "opencl" in body and "pthread-cpu" in body and "2.9 KiB" in body
    assert "saxpy" in body and "NVIDIA H200" in body and "100 bytes" in body
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["kernel"] for r in rows} == {"stencil", "saxpy"}
    assert all(len(r["key"]) == 64 and r["last_used"] > 0 for r in rows)


def test_list_marks_a_name_cut_short(filled, capsys):
    name = "Simulation.step.<locals>.deposit_charge_on_the_staggered_grid_kernel"
    get_kernel_cache().get_or_compile(
        {"kernel": name}, lambda: b"k" * 10, describe=f"numba kernel {name!r}",
        meta={"kernel": name, "backend": "numba-cuda", "device": "NVIDIA H200"})
    assert main(["list"]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines()
              if line.startswith("Simulation")]
    cell = row.split("  ")[0]
    assert len(cell) == 40 and cell.endswith("...") and name.startswith(cell[:-3])
    assert main(["list", "--json"]) == 0
    assert name in {r["kernel"] for r in json.loads(capsys.readouterr().out)}


def test_verify_ok_then_damaged(filled, capsys):
    assert main(["verify"]) == 0
    assert capsys.readouterr().out.strip().endswith("OK")
    (first, _) = Cache(filled).entries()
    with open(filled, "r+b") as f:
        f.seek(first.offset + first.record_size - 40)
        f.write(b"!")
    assert main(["verify"]) == 1
    out = capsys.readouterr().out
    assert f"damaged record at offset {first.offset}: checksum mismatch" in out


def test_verify_reports_a_torn_tail_without_failing(filled, capsys):
    with open(filled, "ab") as f:
        f.write(fmt.RECORD_MAGIC + b"\x01\x00")
    assert main(["verify"]) == 0
    assert "6 bytes at the end are an interrupted" in capsys.readouterr().out


def test_clear(filled, capsys):
    assert main(["clear"]) == 0
    assert "cleared" in capsys.readouterr().out and len(Cache(filled)) == 0
    assert main(["list"]) == 0 and "no cached kernels" in capsys.readouterr().out


def test_clear_refuses_a_foreign_file_and_read_only_mode(tmp_path, monkeypatch, capsys):
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    assert main(["clear", "--path", str(other)]) == 1
    assert other.read_text() == "keep me"
    assert "not a safekern cache file" in capsys.readouterr().err
    set_safekern(monkeypatch, CACHE_READONLY="1")
    assert main(["clear"]) == 1


def test_cache_off(monkeypatch, capsys):
    set_safekern(monkeypatch, CACHE="off")
    assert main(["info"]) == 0 and "off" in capsys.readouterr().out


def test_usage_errors():
    with pytest.raises(SystemExit) as exc:
        main(["bogus"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


def test_python_dash_m_safekern_cache(filled):
    env = dict(os.environ, SAFEKERN_CACHE=filled)
    out = subprocess.run([sys.executable, "-m", "safekern", "cache", "list"], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "stencil" in out.stdout and "saxpy" in out.stdout
    out = subprocess.run([sys.executable, "-m", "safekern"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "cache info|list|verify|clear" in out.stdout
