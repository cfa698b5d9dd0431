"""The configuration module and its documentation agree; bad values name the variable."""
import os

import pytest

from safekern import config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_variable_documented():
    text = open(os.path.join(ROOT, "docs", "configuration.md")).read()
    for var in config.VARIABLES:
        assert f"`{var.name}`" in text


def test_no_other_module_reads_safekern_variables():
    offenders = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "safekern")):
        for name in files:
            path = os.path.join(dirpath, name)
            if not name.endswith(".py") or path.endswith(os.path.join("safekern", "config.py")):
                continue
            text = open(path).read()
            if "os.environ" in text and "SAFEKERN_" in text:
                offenders.append(path)
    assert not offenders


@pytest.mark.parametrize("name,value", [("SAFEKERN_CHECKS", "maybe"),
                                        ("SAFEKERN_SYNC_EVERY_LAUNCH", "2"),
                                        ("SAFEKERN_LOG", "loud")])
def test_bad_values_name_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        config.reload()
    monkeypatch.delenv(name)
    config.reload()


@pytest.mark.parametrize("name,value", [("SAFEKERN_CACHE_MAX_BYTES", "-3"),
                                        ("SAFEKERN_CACHE_READONLY", "maybe"),
                                        ("SAFEKERN_CACHE_LOCK_TIMEOUT", "soon")])
def test_bad_cache_values_name_the_variable_without_stopping_kernels(monkeypatch, name, value):
    """The kernel cache turns them into one CacheWarning (tests/cache/test_cache_settings.py)."""
    monkeypatch.setenv(name, value)
    assert f"{name}={value!r}" in config.reload().cache_problem
    monkeypatch.delenv(name)
    assert config.reload().cache_problem is None
