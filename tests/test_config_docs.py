"""The configuration module and its documentation agree; bad values name the variable."""
import os

import pytest

from safekern import config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
                                        ("SAFEKERN_CACHE_MAX_BYTES", "-3"),
                                        ("SAFEKERN_LOG", "loud")])
def test_bad_values_name_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        config.reload()
    monkeypatch.delenv(name)
    config.reload()
