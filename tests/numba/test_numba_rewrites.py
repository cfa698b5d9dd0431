"""Checked rewrites of numba kernels from the kernel cache (backends/numba/stored.py): a warm
decoration skips the rewrite and still gives the same source, check report and failure
reports; anything the rewrite depends on changing means a fresh rewrite."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from safekern.backends.numba import stored as numba_rewrites
from safekern.cache.kernels import get_kernel_cache, kernel_key
from safekern.failures import TABLE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODULE = """
    import numpy as np
    from numba import cuda, float32
    import safekern

    N = {N}

    @safekern.jit(device=True)
    def get(a, i):
        return a[i]

    @safekern.jit
    def k(out, a, shift):
        s = cuda.shared.array(32, float32)
        t = cuda.threadIdx.x
        s[t] = get(a, t + shift)
        cuda.syncthreads()
        if t < out.shape[0]:
            out[t] = s[N - 1 - t] * N
"""


def _load(tmp_path, name, n=32):
    from tests.support.checks import load_kernel_module

    # (One file name for every module: the stored rewrite's key holds the file.)
    return load_kernel_module(tmp_path, MODULE.format(N=n), name, register=True,
                              filename="rewrite_mod.py")


def test_a_kernel_is_rewritten_when_first_needed_and_stored_then(tmp_path):
    """A kernel's decoration with no stored rewrite only checks it: the rewrite (and its entry
    in the cache) comes with the first build or report."""
    import safekern

    first = _load(tmp_path, "rw_lazy")
    assert first.k.build._rewritten is None
    assert first.get.build._rewritten is not None       # a device function's: at decoration
    assert not numba_rewrites.lookup(safekern.jit(first.k.py_func).build)
    first.k.check_report()
    assert first.k.build._rewritten is not None
    assert numba_rewrites.is_stored(numba_rewrites.lookup(safekern.jit(first.k.py_func).build))


def test_a_second_decoration_takes_the_stored_rewrite(tmp_path):
    import safekern

    first = _load(tmp_path, "rw_first")
    assert not numba_rewrites.is_stored(first.k.rewritten)
    again = safekern.jit(first.k.py_func)
    rewritten = again.rewritten
    assert numba_rewrites.is_stored(rewritten)
    assert rewritten.source == first.k.rewritten.source
    assert again.check_report() == first.k.check_report()
    assert rewritten.has_barriers and rewritten.device_calls == first.k.rewritten.device_calls
    assert list(rewritten.device_calls.values()) == [first.get]
    for site in rewritten.sites:
        assert TABLE.lookup(site.code) is not None
    # The names a key needs come without parsing the stored source.
    assert rewritten._tree is None and rewritten.names_used is not None


def test_a_build_compiles_a_fresh_rewrite_with_line_numbers(tmp_path):
    import safekern

    first = _load(tmp_path, "rw_build")
    first.k.check_report()          # a kernel's rewrite is made, and stored, when first needed
    again = safekern.jit(first.k.py_func)
    assert numba_rewrites.is_stored(again.build.final_rewrite())
    again.numba_dispatcher()
    assert not numba_rewrites.is_stored(again.rewritten)
    assert again.rewritten.source == first.k.rewritten.source
    assert again.rewritten.tree.body[0].lineno == first.k.rewritten.tree.body[0].lineno > 1


def test_what_the_rewrite_depends_on_is_in_its_key(tmp_path, monkeypatch):
    base = _load(tmp_path, "rw_key_a")
    key = kernel_key(numba_rewrites.key_fields(base.k.build))
    assert kernel_key(numba_rewrites.key_fields(base.k.build)) == key
    other = _load(tmp_path, "rw_key_b", n=16)            # a global constant changed
    assert kernel_key(numba_rewrites.key_fields(other.k.build)) != key
    assert not numba_rewrites.is_stored(other.k.rewritten)
    monkeypatch.setattr(numba_rewrites, "_front_end", "0" * 64)   # safekern's front end changed
    assert kernel_key(numba_rewrites.key_fields(base.k.build)) != key
    monkeypatch.undo()
    base.get = object()          # a name the function uses now means something unknown
    with pytest.raises(numba_rewrites._NotStorable):
        numba_rewrites.key_fields(base.k.build)


def test_a_damaged_stored_rewrite_is_rewritten(tmp_path):
    import safekern

    first = _load(tmp_path, "rw_damaged")
    first.k.check_report()          # (made, and stored)
    kc = get_kernel_cache()
    key = kernel_key(numba_rewrites.key_fields(first.k.build))
    data = json.loads(kc.store.get(key))
    data["device_calls"] = {"_sk_dev0": "N"}             # no longer a device function
    assert kc.store.put(key, json.dumps(data).encode())
    again = safekern.jit(first.k.py_func)
    assert not numba_rewrites.is_stored(again.rewritten)
    assert again.rewritten.source == first.k.rewritten.source
    # ... and the entry was replaced by a good one.
    assert numba_rewrites.is_stored(safekern.jit(first.k.py_func).rewritten)


PROBE = """
import json, sys
import numpy as np
from numba import cuda
import safekern
from safekern.backends.numba import stored as numba_rewrites
sys.path.insert(0, sys.argv[1])
import rewrite_mod as m
stored = [numba_rewrites.is_stored(m.k.rewritten), numba_rewrites.is_stored(m.get.rewritten)]
out = cuda.to_device(np.zeros(32, np.float32))
m.k[1, 32](out, cuda.to_device(np.arange(40, dtype=np.float32)), 9)
try:
    safekern.sync()
    err = None
except safekern.BoundsError as e:
    err = [e.array, e.index, e.size, e.lineno, e.kernel, list(e.thread)]
print(json.dumps({"stored": stored[0], "device_stored": stored[1], "error": err}))
"""


@pytest.mark.cudasim
def test_a_new_process_reports_failures_from_the_stored_rewrite(tmp_path):
    (tmp_path / "rewrite_mod.py").write_text(textwrap.dedent(MODULE.format(N=32)))
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "rw.cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert [r["stored"] for r in runs] == [False, True]
    assert [r["device_stored"] for r in runs] == [False, True]
    # get(a, t + shift) with shift 9: thread 31 reads a[40] of 40 elements, in `get` (line 10)
    assert runs[0]["error"] == runs[1]["error"] == ["a", 40, 40, 10, "get", [31, 0, 0]]


def test_a_kernel_rewritten_at_its_first_launch_follows_the_settings_of_its_decoration(
        tmp_path, monkeypatch):
    """The rewrite waits for the first build; the settings it follows do not: a kernel decorated
    with SAFEKERN_ELIMINATE=0 keeps every check, whatever is set when it first launches (the
    differential fuzzers decorate the same kernel both ways); so do the device functions
    specialised for its calls, made during that rewrite."""
    import numpy as np
    from numba import cuda

    import safekern
    from tests.support.differential import eliminated_sites
    from tests.support.settings import set_safekern

    set_safekern(monkeypatch, ELIMINATE="0")
    plain = _load(tmp_path, "rw_settings_off")
    assert plain.k.build._rewritten is None
    monkeypatch.undo()
    set_safekern(monkeypatch, ELIMINATE="1")
    checked_all = plain.k.check_report()
    assert eliminated_sites(plain.k) == 0 and checked_all
    assert all(r["status"] == "checked" for r in checked_all if r["kind"] == "load")
    eliminating = _load(tmp_path, "rw_settings_on")
    assert eliminated_sites(eliminating.k) > 0
    out = cuda.to_device(np.zeros(32, np.float32))
    plain.k[1, 32](out, cuda.to_device(np.arange(40, dtype=np.float32)), 0)
    safekern.sync()
    assert plain.k.build.config.eliminate is False


def test_the_first_rewrite_starts_from_the_decorations_check_pass_while_the_names_agree(
        tmp_path, monkeypatch):
    """The decoration ran the check rewriter (what it refuses); the rewrite at the first build
    starts from that pass, not a second one -- unless a name the kernel reads means something
    else by then (a constant rebound): then the pass runs again, with what the names mean
    now."""
    from safekern.frontend.python import pipeline

    passes = []
    run = pipeline._checked_body
    monkeypatch.setattr(pipeline, "_checked_body",
                        lambda parsed, *a: passes.append(parsed.name) or run(parsed, *a))
    monkeypatch.setenv("SAFEKERN_CACHE", "off")
    same = _load(tmp_path, "rw_same_names")
    assert passes.count("k") == 1
    same.k.check_report()
    assert passes.count("k") == 1

    rebound = _load(tmp_path, "rw_rebound", n=16)
    assert passes.count("k") == 2
    rebound.N = 8
    rebound.k.check_report()
    assert passes.count("k") == 3
