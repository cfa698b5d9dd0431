"""A SAFEKERN_* setting for the length of a `with` block (read again through config.reload(),
as the one config module requires; the variable and the settings are restored after)."""
from __future__ import annotations

import contextlib


@contextlib.contextmanager
def safekern_setting(monkeypatch, name: str, value: str):
    from safekern import config

    monkeypatch.setenv(name, value)
    config.reload()
    try:
        yield
    finally:
        monkeypatch.delenv(name)
        config.reload()


__all__ = ["safekern_setting"]
