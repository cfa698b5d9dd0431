"""The one way tests change safekern's settings: the SAFEKERN_* variable set (or unset) and the
configuration read again (config.reload(): the one config module reads the environment).

    set_safekern(monkeypatch, RACES="error", CACHE="off")   # for the rest of the test
    set_safekern(monkeypatch, CACHE_MAX_BYTES=None)          # None: unset
    with safekern_setting(monkeypatch, "SAFEKERN_CHECKS", "0"):   # for a block
        ...

The repository's conftest.py undoes the variables and reads the configuration again after every
test, so `set_safekern` needs no restoring.
"""
from __future__ import annotations

import contextlib


def _name(key: str) -> str:
    return key if key.startswith("SAFEKERN_") else f"SAFEKERN_{key}"


def set_safekern(monkeypatch, **settings):
    """Set each SAFEKERN_<KEY> to its value (str() of it; None: unset), then read the
    configuration again; the new safekern.config.Config."""
    from safekern import config

    for key, value in settings.items():
        if value is None:
            monkeypatch.delenv(_name(key), raising=False)
        else:
            monkeypatch.setenv(_name(key), str(value))
    return config.reload()


def reload_settings():
    """The configuration read again, for a test that changed the environment another way
    (a child process's environment, os.environ itself)."""
    from safekern import config

    return config.reload()


@contextlib.contextmanager
def safekern_setting(monkeypatch, name: str, value: str):
    """SAFEKERN_* `name` set to `value` for the length of the block, then unset."""
    set_safekern(monkeypatch, **{name: value})
    try:
        yield
    finally:
        set_safekern(monkeypatch, **{name: None})


__all__ = ["set_safekern", "safekern_setting", "reload_settings"]
