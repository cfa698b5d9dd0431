"""numba's cache=True semantics under safekern.jit (docs/cache.md, "numba-cuda's cache=True"):
a kernel's binaries in numba's own on-disk cache under the user's function's name, each build
keyed apart (tests/numba/caching_probe.py, run without the simulator), and `recompile()`
compiling afresh with the globals as they are now -- no build keeps a binary from before."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.timeout(300)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_GLOBAL_KERNELS = """
import safekern

Z = 1


@safekern.jit
def add_z(r, x):
    r[0] = x[0] + Z


@safekern.jit
def add_z_at(r, x, i):
    r[i] = x[i] + Z
"""


@pytest.mark.cudasim
@pytest.mark.parametrize("name, extra", [("add_z", ()), ("add_z_at", (0,))])
def test_recompile_reads_the_globals_again(kernel_module, name, extra):
    mod = kernel_module(_GLOBAL_KERNELS, name="recompile_kernels")
    kernel = getattr(mod, name)
    r, x = np.zeros(1, np.int64), np.ones(1, np.int64)
    kernel[1, 1](r, x, *extra)
    assert r[0] == 2
    mod.Z = 10
    kernel.recompile()
    kernel[1, 1](r, x, *extra)
    assert r[0] == 11          # not the binary compiled with Z = 1 (a stale one)


@pytest.fixture(scope="module")
def probe():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tests.numba.caching_probe"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "NVVM" in proc.stderr:
        pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", [
    "checked_build_named_as_numba_names_the_function", "numbas_own_build_shares_numbas_key",
    "checked_build_keyed_apart_from_numbas", "closures_keyed_by_their_values",
    "launch_variant_keyed_apart_from_the_checked_kernel",
    "launch_config_specializations_keyed_as_their_build", "stats_before_any_launch"])
def test_numba_disk_cache_of_every_build(probe, name):
    assert probe.get(name) == "ok", probe.get(name)


_PENDING_KERNELS = """
import safekern


@safekern.jit
def put(a, where):
    a[where[0]] = 1


@safekern.jit(cache=True)
def add_one(r, x):
    r[()] = x[()] + 1
"""


@pytest.mark.cudasim
def test_cache_true_kernel_runs_one_build_whatever_is_pending(kernel_module):
    """numba's cache entries (globals compiled in) are per build: a cache=True launch that
    runs numba's own build when nothing is pending runs it after a checked launch too."""
    from numba import cuda

    mod = kernel_module(_PENDING_KERNELS, name="pending_kernels")
    a = cuda.to_device(np.zeros(4, np.int64))
    where = cuda.to_device(np.array([2], np.int64))
    mod.put[1, 1](a, where)                   # a checked launch: its check may be pending
    r, x = cuda.to_device(np.zeros((), np.int64)), cuda.to_device(np.ones((), np.int64))
    mod.add_one[1, 1](r, x)
    assert r.copy_to_host()[()] == 2
    assert mod.add_one.dispatch.plain_made is not None      # numba's own build ran
    assert mod.add_one.build.numba is None     # the checked one never did
