"""KernelCache: keys, staleness, single compile per key, reject, logging, configuration."""
import logging
import os
import threading
import time

import pytest

from tests.support.cache_helpers import cache_warnings, fresh_cache_warnings  # noqa: F401
from safekern.cache import Cache, keys
from safekern.cache.kernels import FILE_NAME, KernelCache, get_kernel_cache
from tests.support.settings import set_safekern

BASE = {
    "backend": "opencl", "toolchain": {"pyopencl": "2024.2", "pocl": "6.0"},
    "source": "__kernel void k(__global float *a) {\n  a[get_global_id(0)] = 1;\n}\n",
    "kernel": "k", "arg_types": (("float32", 1, "C"),), "options": ("-cl-fast-relaxed-math",),
    "checks": True, "device": {"name": "pthread-cpu", "version": "OpenCL 3.0", "driver": "6.0"},
    "env": {"POCL_DEVICES": "cpu"}, "max_registers": None, "fastmath": False,
}


class Compiler:
    def __init__(self, delay=0.0):
        self.calls = []
        self.delay = delay

    def __call__(self, fields, tag=b""):
        def compile_fn():
            self.calls.append(fields)
            time.sleep(self.delay)
            return b"binary:" + keys.encode(fields) + tag
        return compile_fn


def test_get_kernel_cache_follows_the_configuration(tmp_path, monkeypatch):
    kc = get_kernel_cache()
    assert isinstance(kc, KernelCache) and kc.path == os.environ["SAFEKERN_CACHE"]
    assert get_kernel_cache() is kc
    set_safekern(monkeypatch, CACHE="off")
    assert get_kernel_cache() is None
    set_safekern(monkeypatch, CACHE=str(tmp_path / "other.cache"))
    assert get_kernel_cache().path == str(tmp_path / "other.cache")


def test_default_path_is_in_the_user_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    set_safekern(monkeypatch, CACHE=None)
    kc = get_kernel_cache()
    assert kc.path == str(tmp_path / "xdg" / "safekern" / FILE_NAME)
    assert FILE_NAME == "kernels-v1.cache" and os.path.exists(kc.path)


def test_miss_compiles_then_hit_returns_the_same_bytes():
    kc = get_kernel_cache()
    compiler = Compiler()
    first = kc.get_or_compile(BASE, compiler(BASE), describe="opencl kernel 'k'",
                              meta={"kernel": "k", "backend": "opencl", "device": "cpu"})
    second = kc.get_or_compile(BASE, compiler(BASE), describe="opencl kernel 'k'")
    assert first == second and len(compiler.calls) == 1
    # A new process (a new KernelCache on the same file) compiles nothing either.
    fresh = KernelCache(Cache(kc.path))
    assert fresh.get_or_compile(BASE, compiler(BASE)) == first and len(compiler.calls) == 1
    (entry,) = Cache(kc.path).entries()
    assert entry.meta["kernel"] == "k" and entry.meta["describe"] == "opencl kernel 'k'"
    assert entry.meta["compile_seconds"] >= 0


def _changed(fields, path, value):
    out = dict(fields)
    if len(path) == 1:
        out[path[0]] = value
    else:
        out[path[0]] = dict(out[path[0]], **{path[1]: value})
    return out


CHANGES = [
    (("source",), BASE["source"].replace("= 1", "= 2")),
    (("source",), BASE["source"] + " "),
    (("kernel",), "k2"),
    (("arg_types",), (("float64", 1, "C"),)),
    (("arg_types",), (("float32", 1, "F"),)),
    (("options",), ()),
    (("options",), ("-cl-fast-relaxed-math", "-g")),
    (("checks",), False),
    (("fastmath",), True),
    (("max_registers",), 32),
    (("device", "name"), "NVIDIA H200"),
    (("device", "version"), "OpenCL 2.0"),
    (("device", "driver"), "6.1"),
    (("toolchain", "pyopencl"), "2025.1"),
    (("toolchain", "nvrtc"), "13.0"),
    (("env",), {}),
    (("backend",), "cuda"),
]


@pytest.mark.parametrize("path, value", CHANGES, ids=[".".join(p) + "=" + repr(v)[:20]
                                                      for p, v in CHANGES])
def test_changing_any_key_field_misses(path, value):
    kc = get_kernel_cache()
    compiler = Compiler()
    kc.get_or_compile(BASE, compiler(BASE))
    changed = _changed(BASE, path, value)
    got = kc.get_or_compile(changed, compiler(changed))
    assert len(compiler.calls) == 2 and got == b"binary:" + keys.encode(changed)
    # and the original is still a hit
    assert kc.get_or_compile(BASE, compiler(BASE)) == b"binary:" + keys.encode(BASE)
    assert len(compiler.calls) == 2


def test_safekern_version_and_format_are_part_of_the_key(monkeypatch):
    import safekern._version

    kc = get_kernel_cache()
    compiler = Compiler()
    material = kc.key(BASE)
    decoded = keys.decode(material)
    assert decoded["safekern_version"] == safekern.__version__ and decoded["cache_format"] == 1
    kc.get_or_compile(BASE, compiler(BASE))
    monkeypatch.setattr(safekern._version, "__version__", "99.0")    # the one place
    kc.get_or_compile(BASE, compiler(BASE))
    assert len(compiler.calls) == 2
    with pytest.raises(ValueError, match="reserved"):
        kc.key(dict(BASE, cache_format=2))


def test_threads_compile_a_key_once_and_share_the_result():
    kc = get_kernel_cache()
    compiler = Compiler(delay=0.2)
    results = []
    barrier = threading.Barrier(8)

    def run():
        barrier.wait()
        results.append(kc.get_or_compile(BASE, compiler(BASE)))

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(compiler.calls) == 1 and len(set(results)) == 1 and len(results) == 8


def test_a_failed_compile_is_not_cached_and_is_not_shared():
    kc = get_kernel_cache()
    attempts = []

    def failing():
        attempts.append(1)
        time.sleep(0.05)
        raise RuntimeError("compiler error")

    errors = []

    def run():
        try:
            kc.get_or_compile(BASE, failing)
        except RuntimeError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 3 and len(attempts) == 3   # each tried (one at a time), none stored
    assert len(Cache(kc.path)) == 0
    assert kc.get_or_compile(BASE, lambda: b"ok") == b"ok"


def test_compile_fn_must_return_bytes():
    with pytest.raises(TypeError, match="not bytes"):
        get_kernel_cache().get_or_compile(BASE, lambda: "text", describe="x")


def test_reject_recompiles_and_replaces(caplog):
    caplog.set_level(logging.INFO, logger="safekern.cache")
    kc = get_kernel_cache()
    compiler = Compiler()
    assert kc.get_or_compile(BASE, compiler(BASE, b"v1")).endswith(b"v1")
    kc.reject(BASE, reason="driver refused the binary")
    assert kc.get_or_compile(BASE, compiler(BASE, b"v2")).endswith(b"v2")
    assert len(compiler.calls) == 2
    other_process = KernelCache(Cache(kc.path))
    assert other_process.get_or_compile(BASE, compiler(BASE, b"v3")).endswith(b"v2")
    assert "reject" in caplog.text and "driver refused the binary" in caplog.text


def test_reject_works_on_a_read_only_cache(monkeypatch):
    kc = get_kernel_cache()
    kc.get_or_compile(BASE, lambda: b"stale")
    set_safekern(monkeypatch, CACHE_READONLY="1")
    ro = get_kernel_cache()
    assert ro.store.readonly and ro.get_or_compile(BASE, lambda: b"new") == b"stale"
    ro.reject(BASE, reason="driver refused it")
    assert ro.get_or_compile(BASE, lambda: b"new") == b"new"


def test_log_says_miss_store_hit_reject_and_evict(caplog, monkeypatch):
    caplog.set_level(logging.DEBUG, logger="safekern.cache")
    set_safekern(monkeypatch, CACHE_MAX_BYTES="4096")
    kc = get_kernel_cache()
    kc.get_or_compile(BASE, lambda: b"x" * 1000, describe="opencl kernel 'k'")
    kc.get_or_compile(BASE, lambda: b"x" * 1000, describe="opencl kernel 'k'")
    kc.reject(BASE, reason="bad binary", describe="opencl kernel 'k'")
    for i in range(5):
        fields = dict(BASE, kernel=f"k{i}")
        kc.get_or_compile(fields, lambda: b"y" * 1000, describe=f"opencl kernel 'k{i}'")
    messages = [r.getMessage() for r in caplog.records if r.name == "safekern.cache"]
    for word in ("miss: opencl kernel 'k'", "store: opencl kernel 'k'",
                 "hit: opencl kernel 'k'", "reject: opencl kernel 'k'", "evict: dropped"):
        assert any(m.startswith(word) for m in messages), (word, messages)


def test_debug_log_shows_key_fields_and_what_changed(caplog):
    caplog.set_level(logging.DEBUG, logger="safekern.cache")
    kc = get_kernel_cache()
    kc.get_or_compile(BASE, lambda: b"a", describe="opencl kernel 'k'")
    caplog.clear()
    changed = _changed(BASE, ("device", "driver"), "6.1")
    kc.get_or_compile(changed, lambda: b"b", describe="opencl kernel 'k'")
    text = caplog.text
    assert "changed since the cached entry" in text and "device.driver: '6.0' -> '6.1'" in text
    assert "key fields:" in text and "kernel = 'k'" in text and "checks = True" in text
    assert "source = " in text


def test_safekern_log_debug_prints_key_fields_of_a_miss(tmp_path):
    import subprocess
    import sys

    env = dict(os.environ, SAFEKERN_LOG="debug", SAFEKERN_CACHE=str(tmp_path / "k.cache"))
    code = ("from safekern.cache.kernels import get_kernel_cache as g\n"
            "g().get_or_compile({'kernel': 'k', 'source': 'a[i] = 1'}, lambda: b'bin', "
            "describe=\"numba kernel 'k'\")\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))), timeout=60)
    assert out.returncode == 0, out.stderr
    assert "miss: numba kernel 'k'" in out.stderr and "source = 'a[i] = 1'" in out.stderr


def test_unusable_store_problems_never_reach_the_caller(monkeypatch):
    kc = get_kernel_cache()

    def broken(*args, **kwargs):
        raise struct_error("unexpected")

    struct_error = type("StructError", (Exception,), {})
    monkeypatch.setattr(kc.store, "get", broken)
    monkeypatch.setattr(kc.store, "put", broken)
    with cache_warnings() as caught:
        assert kc.get_or_compile(BASE, lambda: b"fine") == b"fine"
        assert kc.get_or_compile(BASE, lambda: b"fine") == b"fine"
    assert len({str(w.message) for w in caught}) == 2    # one per operation, once each
