"""The cache's settings and what a user sees of the cache: an invalid SAFEKERN_CACHE_* value is one
CacheWarning (kernels run uncached), never a traceback; SAFEKERN_LOG makes the cache's log
visible without any logging set-up; CacheWarning is importable from safekern and safekern.cache.
"""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import safekern
import safekern.cache
from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings  # noqa: F401
from safekern import config
from safekern.cache import trust
from safekern.cache.kernels import get_kernel_cache
from tests.support.settings import reload_settings, set_safekern

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE_VARIABLES = ("SAFEKERN_CACHE_MAX_BYTES", "SAFEKERN_CACHE_READONLY",
                   "SAFEKERN_CACHE_LOCK_TIMEOUT")


@pytest.fixture(autouse=True)
def _clean_settings(monkeypatch):
    set_safekern(monkeypatch, **{name: None for name in CACHE_VARIABLES + ("SAFEKERN_LOG",)})
    yield
    monkeypatch.undo()
    reload_settings()


def run_python(code, **env):
    full = dict(os.environ, PYTHONWARNINGS="default", **env)
    for name in CACHE_VARIABLES + ("SAFEKERN_LOG",):
        if name not in env:
            full.pop(name, None)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          cwd=ROOT, timeout=120, start_new_session=True)


COMPILE = ("from safekern.cache.kernels import get_kernel_cache as g\n"
           "for i in range(2):\n"
           "    kc = g()\n"
           "    got = kc.get_or_compile({'kernel': 'k'}, lambda: b'bin', "
           "describe=\"numba kernel 'k'\") if kc else b'bin'\n"
           "    assert got == b'bin'\n"
           "print('ran')\n")


# -- invalid cache settings: one CacheWarning, kernels run uncached ----------------------------

@pytest.mark.parametrize("name,value,expected", [
    ("SAFEKERN_CACHE_MAX_BYTES", "abc", "expected an integer"),
    ("SAFEKERN_CACHE_MAX_BYTES", "-3", "expected a non-negative integer"),
    ("SAFEKERN_CACHE_READONLY", "maybe", "expected 0 or 1"),
    ("SAFEKERN_CACHE_LOCK_TIMEOUT", "soon", "expected a number of seconds"),
    # a negative timeout would mean "wait forever" to filelock
    ("SAFEKERN_CACHE_LOCK_TIMEOUT", "-1", "expected a finite, non-negative number of seconds"),
    ("SAFEKERN_CACHE_LOCK_TIMEOUT", "inf", "expected a finite, non-negative number of seconds"),
    ("SAFEKERN_CACHE_LOCK_TIMEOUT", "nan", "expected a finite, non-negative number of seconds"),
])
def test_an_invalid_cache_setting_is_one_warning_and_no_cache(monkeypatch, name, value,
                                                                expected):
    cfg = set_safekern(monkeypatch, **{name: value})                         # no ValueError: the kernels still run
    assert f"{name}={value!r}: {expected}" in cfg.cache_problem
    with cache_warnings() as caught:
        for _ in range(3):
            assert get_kernel_cache() is None
    assert len(caught) == 1, [str(w.message) for w in caught]
    message = str(caught[0].message)
    assert f"{name}={value!r}" in message and "uncached" in message
    assert caught[0].category is safekern.CacheWarning
    assert not os.path.exists(os.environ["SAFEKERN_CACHE"])


def test_every_invalid_cache_setting_is_named_in_the_one_warning(monkeypatch):
    set_safekern(monkeypatch, CACHE_MAX_BYTES="1GiB", CACHE_LOCK_TIMEOUT="forever")
    with cache_warnings() as caught:
        assert get_kernel_cache() is None
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "SAFEKERN_CACHE_MAX_BYTES='1GiB'" in message
    assert "SAFEKERN_CACHE_LOCK_TIMEOUT='forever'" in message


def test_a_valid_setting_again_brings_the_cache_back(monkeypatch):
    set_safekern(monkeypatch, CACHE_MAX_BYTES="abc")
    with cache_warnings():
        assert get_kernel_cache() is None
    set_safekern(monkeypatch, CACHE_MAX_BYTES="100000")
    kc = get_kernel_cache()
    assert kc is not None and kc.store.max_bytes == 100000


def test_a_disabled_cache_does_not_complain_about_its_settings(monkeypatch):
    set_safekern(monkeypatch, CACHE="off", CACHE_MAX_BYTES="abc")
    with cache_warnings() as caught:
        assert get_kernel_cache() is None
    assert not caught


@pytest.mark.parametrize("name,value", [("SAFEKERN_CHECKS", "maybe"), ("SAFEKERN_LOG", "loud")])
def test_other_invalid_settings_are_still_an_error_naming_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    config._current = None                        # as in a new process: read at first use
    with pytest.raises(ValueError, match=f"{name}={value!r}"):
        get_kernel_cache()


def test_a_plain_program_runs_with_one_warning_and_no_traceback(tmp_path):
    out = run_python(COMPILE, SAFEKERN_CACHE=str(tmp_path / "k.cache"),
                     SAFEKERN_CACHE_MAX_BYTES="abc")
    assert out.returncode == 0 and out.stdout.strip() == "ran", out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.count("CacheWarning") == 1, out.stderr
    assert "SAFEKERN_CACHE_MAX_BYTES='abc': expected an integer" in out.stderr
    assert not (tmp_path / "k.cache").exists()


@pytest.mark.opencl
def test_an_opencl_kernel_launch_runs_uncached(monkeypatch):
    from tests.support.opencl_env import require_env   # (sets up the ICD vendors before pyopencl)

    pytest.importorskip("pyopencl")
    env = require_env("pocl")
    skcl = pytest.importorskip("safekern.opencl")
    cla = pytest.importorskip("pyopencl.array")
    set_safekern(monkeypatch, CACHE_MAX_BYTES="abc")
    src = """__kernel void twice(__global const float *a, __global float *out) {
    int i = get_global_id(0);
    out[i] = 2 * a[i];
}"""
    with cache_warnings() as caught:
        prg = skcl.Program(env.ctx, src, filename="k.cl").build()
        a = cla.to_device(env.queue, np.arange(16, dtype=np.float32))
        out = cla.zeros(env.queue, 16, np.float32)
        prg.twice(env.queue, (16,), None, a, out)
        safekern.sync()
    assert np.array_equal(out.get(), 2 * np.arange(16, dtype=np.float32))
    assert len(caught) == 1 and "SAFEKERN_CACHE_MAX_BYTES='abc'" in str(caught[0].message)
    assert not os.path.exists(os.environ["SAFEKERN_CACHE"])


# -- SAFEKERN_LOG ------------------------------------------------------------------------------

def test_safekern_log_info_prints_the_cache_log_without_any_logging_setup(tmp_path):
    out = run_python(COMPILE, SAFEKERN_CACHE=str(tmp_path / "k.cache"), SAFEKERN_LOG="info")
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert any(line.startswith("safekern.cache: miss: numba kernel 'k'") for line in lines), \
        out.stderr
    assert any(line.startswith("safekern.cache: store: numba kernel 'k'") for line in lines)
    assert not any(line.startswith("safekern.cache: hit:") for line in lines)   # debug level


def test_safekern_log_debug_prints_hits_too(tmp_path):
    out = run_python(COMPILE, SAFEKERN_CACHE=str(tmp_path / "k.cache"), SAFEKERN_LOG="debug")
    assert out.returncode == 0, out.stderr
    assert "\nsafekern.cache: hit: numba kernel 'k'" in "\n" + out.stderr, out.stderr


def test_safekern_log_covers_the_store_used_directly(tmp_path):
    """No code path that reads the rest of the configuration is needed."""
    code = ("from safekern.cache import Cache\n"
            "c = Cache(%r, max_bytes=3000)\n"
            "for i in range(5):\n"
            "    c.put(b'k%%d' %% i, bytes(1000))\n" % str(tmp_path / "s.cache"))
    out = run_python(code, SAFEKERN_LOG="info")
    assert out.returncode == 0, out.stderr
    assert "safekern.cache: evict: dropped" in out.stderr, out.stderr


LOGGER_STATE = ("import logging, safekern\n"
                "from safekern import config\n"
                "config.get()\n"
                "config.reload()\n"
                "lg = logging.getLogger('safekern')\n"
                "print(lg.level, [type(h).__name__ for h in lg.handlers])\n")


def test_unset_safekern_log_adds_no_handler_and_sets_no_level():
    out = run_python(LOGGER_STATE)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(None, 1) == ["0", "['NullHandler']\n"]


def test_safekern_log_adds_one_handler_once():
    out = run_python(LOGGER_STATE, SAFEKERN_LOG="info")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(None, 1) == [str(logging.INFO), "['NullHandler', 'StreamHandler']\n"]


def test_safekern_log_leaves_an_application_handler_alone():
    code = ("import logging, io\n"
            "mine = logging.StreamHandler(io.StringIO())\n"
            "logging.getLogger('safekern').addHandler(mine)\n" + LOGGER_STATE)
    out = run_python(code, SAFEKERN_LOG="debug")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(None, 1) == [str(logging.DEBUG), "['StreamHandler', 'NullHandler']\n"]


def test_reload_follows_safekern_log_and_undoes_it(monkeypatch):
    logger = logging.getLogger("safekern")
    before = (logger.level, list(logger.handlers))
    ours = lambda: [h for h in logger.handlers if h not in before[1]]  # noqa: E731
    set_safekern(monkeypatch, LOG="debug")
    reload_settings()                                  # twice: still one handler
    assert logger.level == logging.DEBUG and len(ours()) == 1
    assert ours()[0].formatter.format(logging.makeLogRecord(
        {"name": "safekern.cache", "msg": "hit: k"})) == "safekern.cache: hit: k"
    set_safekern(monkeypatch, LOG="info")
    assert logger.level == logging.INFO and len(ours()) == 1
    set_safekern(monkeypatch, LOG=None)
    assert (logger.level, list(logger.handlers)) == before


# -- CacheWarning is public --------------------------------------------------------------------

def test_cache_warning_is_exported_from_safekern_and_safekern_cache():
    assert safekern.CacheWarning is safekern.cache.CacheWarning is trust.CacheWarning
    assert issubclass(safekern.CacheWarning, UserWarning)
    assert "CacheWarning" in safekern.__all__ and "CacheWarning" in safekern.cache.__all__
    ns = {}
    exec("from safekern import CacheWarning", ns)
    assert ns["CacheWarning"] is trust.CacheWarning
    with pytest.raises(AttributeError):
        safekern.NoSuchThing  # noqa: B018


def test_importing_safekern_still_does_not_import_the_cache():
    out = run_python("import sys, safekern\n"
                     "print('safekern.cache' in sys.modules, 'filelock' in sys.modules)\n"
                     "safekern.CacheWarning\n"
                     "print('safekern.cache' in sys.modules)\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "True"]


def test_cache_warning_is_documented():
    text = open(os.path.join(ROOT, "docs", "cache.md")).read()
    assert "`safekern.CacheWarning`" in text and "`safekern.cache.CacheWarning`" in text
    assert "category=safekern.CacheWarning" in text
