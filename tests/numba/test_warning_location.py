"""safekern's warnings point at the user's line that led to them, never into safekern.

Each test provokes a CacheWarning from a different depth of safekern (a decorated kernel, a
direct `Cache`, an OpenCL build) and checks `filename`/`lineno` against its own source.
"""
from __future__ import annotations

import inspect
import os
import warnings

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import pytest

from tests.support.cache_helpers import fresh_cache_warnings  # noqa: F401
import safekern
from safekern.cache import Cache, CacheWarning
from tests.support.settings import set_safekern


def _line_of(marker: str) -> int:
    lines, first = inspect.getsourcelines(inspect.currentframe().f_back.f_code)
    for offset, text in enumerate(lines):
        if marker in text:
            return first + offset
    raise AssertionError(f"no line with {marker!r}")


def _cache_warnings(caught):
    return [w for w in caught if issubclass(w.category, CacheWarning)]


@pytest.fixture
def unusable_cache(tmp_path, monkeypatch):
    # A path whose directory cannot be created: a file stands where the directory would be.
    (tmp_path / "file").write_text("")
    set_safekern(monkeypatch, CACHE=str(tmp_path / "file" / "k.cache"))


@pytest.mark.cudasim
def test_warning_at_the_decorated_kernel(unusable_cache):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @safekern.jit  # here
        def warned_kernel(a):
            a[0] = 1

    (w,) = _cache_warnings(caught)
    assert "kernel cache not used: cannot open" in str(w.message)
    assert (w.filename, w.lineno) == (__file__, _line_of("@safekern.jit  # here"))


def test_warning_at_a_direct_cache(tmp_path):
    path = tmp_path / "shared.cache"
    Cache(path).close()
    os.chmod(path, 0o666)      # writable by others: refused
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Cache(path)  # here
    (w,) = _cache_warnings(caught)
    assert "writable by group or others" in str(w.message)
    assert (w.filename, w.lineno) == (__file__, _line_of("Cache(path)  # here"))


@pytest.mark.cudasim
def test_warning_for_an_invalid_setting_at_the_decorated_kernel(monkeypatch):
    set_safekern(monkeypatch, CACHE_MAX_BYTES="lots")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @safekern.jit(device=True)  # here
        def warned_device_function(a):
            return a[0]

    (w,) = _cache_warnings(caught)
    assert "SAFEKERN_CACHE_MAX_BYTES='lots'" in str(w.message)
    assert (w.filename, w.lineno) == (__file__, _line_of("@safekern.jit(device=True)  # here"))


def test_warning_at_the_opencl_build(clenv, unusable_cache):
    import safekern.opencl as skcl

    src = "__kernel void k(__global float *a) { a[get_global_id(0)] = 1.0f; }"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        skcl.Program(clenv.ctx, src).build()  # here
    (w,) = _cache_warnings(caught)
    assert (w.filename, w.lineno) == (__file__, _line_of(".build()  # here"))
