"""Where the cache is without SAFEKERN_CACHE, as docs/cache.md says."""
import os
import pwd

from safekern.cache.kernels import default_path


def _passwd_home(monkeypatch, home):
    real = pwd.getpwuid

    def getpwuid(uid):
        entry = list(real(uid))
        entry[5] = str(home)          # pw_dir
        return pwd.struct_passwd(entry)

    monkeypatch.setattr(pwd, "getpwuid", getpwuid)


def test_without_home_the_password_entry_gives_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    _passwd_home(monkeypatch, tmp_path / "home")
    assert default_path() == str(tmp_path / "home" / ".cache" / "safekern" / "kernels-v1.cache")


def test_xdg_cache_home_comes_first(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_path() == str(tmp_path / "xdg" / "safekern" / "kernels-v1.cache")


def test_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert default_path() == os.path.join(str(tmp_path / "home"), ".cache", "safekern",
                                          "kernels-v1.cache")
