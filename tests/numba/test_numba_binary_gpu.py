"""Cached numba kernels on a GPU: a warm start compiles nothing and still reports failures, a
refused cubin is compiled again, and the short launch path gives plain numba's results for every
way of launching (streams, dynamic shared memory, forall, host arrays, scalars of each kind)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tests.support.settings import set_safekern

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(600)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _probe(cache_path):
    env = dict(os.environ, SAFEKERN_CACHE=str(cache_path))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tests.numba.numba_warm_probe"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_warm_start_in_a_new_process_compiles_nothing(tmp_path):
    path = tmp_path / "warm.cache"
    cold = _probe(path)
    warm = _probe(path)
    for run in (cold, warm):
        assert run["gather_ok"] and run["calls_device_ok"]
        assert run["tree_reduce"] == 64.0
        assert run["with_signature"] == [0.0, 1.0, 2.0, 3.0]
        err = run["error"]
        assert err is not None, "the out-of-bounds index was not reported"
        assert (err["array"], err["axis"], err["index"], err["size"]) == ("src", 0, 1_000_000,
                                                                         256)
        assert err["kernel"] == "gather" and err["filename"] == run["file"]
        assert err["lineno"] == run["expected_line"]
        assert err["thread"] == [13, 0, 0] and err["block"] == [1, 0, 0]
    assert cold["counts"]["kernel_compiles"] >= 4 and cold["stats"].get("compile", 0) >= 4
    # Warm: numba built nothing -- no dispatcher, no _Kernel compiled; every kernel came from
    # the cache.
    assert warm["counts"] == {"dispatchers": 0, "kernel_compiles": 0}, warm
    assert warm["stats"].get("compile", 0) == 0 and warm["stats"].get("hit", 0) >= 4, warm
    assert warm["built"] == []
    assert warm["first_results_s"] < cold["first_results_s"]


def _module(tmp_path, name, source):
    from tests.support.checks import load_kernel_module

    return load_kernel_module(tmp_path, source, name, register=True)


SCALE = """
    from numba import cuda
    import safekern

    @safekern.jit
    def scale(out, a, s):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] * s
"""


def test_a_refused_cubin_is_compiled_again(tmp_path, no_launch_predicates):
    from numba import cuda

    import safekern
    from safekern.backends.numba import keys as numba_keys, launch as numba_binary
    from safekern.backends.numba.device import current_source
    from safekern.backends.numba.marshal import argument_types
    from safekern.cache.kernels import get_kernel_cache, pack_payload, unpack_payload

    mod = _module(tmp_path, "refused_mod", SCALE)
    a = np.arange(64, dtype=np.float32)
    out = cuda.to_device(np.zeros(64, np.float32))
    mod.scale[1, 64](out, cuda.to_device(a), 2.0)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), a * 2)
    # Replace the stored cubin by one the driver cannot load.
    kc = get_kernel_cache()
    argtypes = argument_types((out, out, 2.0)) + (numba_keys.types.int64,)
    fields = numba_keys.key_fields(mod.scale, argtypes,
                                   numba_keys.device_fields(current_source().context))
    key = kc.key(fields)
    meta, blobs = unpack_payload(kc.store.get(key))
    blobs["cubin"] = b"not a cubin, nor PTX\x00" * 8
    assert kc.store.put(key, pack_payload(meta, blobs), {"kernel": "scale"})
    before = dict(numba_binary.STATS)
    again = safekern.jit(mod.scale.py_func)        # a new kernel object: looks the cache up
    out2 = cuda.to_device(np.zeros(64, np.float32))
    again[1, 64](out2, cuda.to_device(a), 3.0)
    safekern.sync()
    np.testing.assert_array_equal(out2.copy_to_host(), a * 3)
    after = numba_binary.STATS
    assert after["reject"] == before.get("reject", 0) + 1
    assert after["compile"] == before.get("compile", 0) + 1
    # The entry now holds a good cubin: a third kernel object loads it.
    third = safekern.jit(mod.scale.py_func)
    third[1, 64](out2, cuda.to_device(a), 4.0)
    safekern.sync()
    np.testing.assert_array_equal(out2.copy_to_host(), a * 4)
    assert numba_binary.STATS["load"] == before.get("load", 0) + 1
    assert numba_binary.STATS["compile"] == before.get("compile", 0) + 1


KERNELS = """
    import math
    from numba import cuda, float32
    import safekern

    @safekern.jit
    def axpy(y, x, alpha, n):
        i = cuda.grid(1)
        if i < n:
            y[i] = alpha * x[i] + y[i]

    @safekern.jit
    def mixed(out, a, b, c, f, z, flag, pair):
        i = cuda.grid(1)
        if i < out.shape[0]:
            v = a[i] * b + c + f
            if flag:
                v += z.real - z.imag
            out[i] = v + pair[0] * pair[1]

    @safekern.jit
    def transpose2d(out, a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[j, i] = a[i, j]

    @safekern.jit
    def dyn_shared(out, a):
        buf = cuda.shared.array(0, float32)
        t = cuda.threadIdx.x
        buf[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        out[cuda.grid(1)] = buf[cuda.blockDim.x - 1 - t]

    @safekern.jit
    def square(out, a):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = math.sqrt(a[i]) * a[i]

    @safekern.jit("void(float32[:], float32[:], float32)")
    def eager(out, a, s):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] * s
"""


@pytest.fixture(scope="module")
def kmods(tmp_path_factory):
    """The same kernels checked and as plain numba (SAFEKERN_CHECKS=0)."""
    from tests.support.settings import reload_settings

    d = tmp_path_factory.mktemp("kernels")
    checked = _module(d, "binary_checked", KERNELS)
    os.environ["SAFEKERN_CHECKS"] = "0"
    reload_settings()
    try:
        plain = _module(d, "binary_plain", KERNELS.replace("binary_checked", "binary_plain"))
    finally:
        del os.environ["SAFEKERN_CHECKS"]
        reload_settings()
    return checked, plain


def _both(kmods, name, launch):
    """launch(kernel) -> host result, for the checked and the plain kernel."""
    import safekern

    checked, plain = kmods
    got = launch(getattr(checked, name))
    safekern.sync()
    want = launch(getattr(plain, name))
    return got, want


def test_scalars_of_each_kind_and_host_arrays(kmods):
    from numba import cuda

    rng = np.random.default_rng(0)
    a = rng.random(100).astype(np.float32)

    def run(k):
        out = cuda.to_device(np.zeros(100, np.float32))
        k[4, 32](out, cuda.to_device(a), np.float32(1.5), 2, 0.25, 1 + 2j, True, (3, 4))
        k[4, 32](out, a, np.float32(1.5), np.int32(-2), np.float64(0.5), np.complex64(1 - 1j),
                 np.bool_(False), (1.5, 2.0))
        host = np.zeros(100, np.float32)          # a host array: copied in and back out
        k[4, 32](host, a, 2.0, 1, 1.0, 0j, False, (0, 0))
        return out.copy_to_host(), host

    (got1, got2), (want1, want2) = _both(kmods, "mixed", run)
    np.testing.assert_allclose(got1, want1, rtol=1e-6)
    np.testing.assert_allclose(got2, want2, rtol=1e-6)
    assert np.any(got2 != 0)


def test_layouts_streams_and_dynamic_shared_memory(kmods):
    from numba import cuda

    a = np.arange(12 * 10, dtype=np.float32).reshape(12, 10)

    def layouts(k):
        res = []
        # C, F and A (a strided view of a device array) layouts
        for d_src in (cuda.to_device(a), cuda.to_device(np.asfortranarray(a)),
                      cuda.to_device(a)[::2, 1:]):
            out = cuda.device_array((d_src.shape[1], d_src.shape[0]), np.float32)
            k[(2, 2), (8, 8)](out, d_src)
            res.append(out.copy_to_host())
        return res

    got, want = _both(kmods, "transpose2d", layouts)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)

    def shared(k):
        stream = cuda.stream()
        x = cuda.to_device(np.arange(64, dtype=np.float32), stream=stream)
        out = cuda.device_array(64, np.float32, stream=stream)
        k[2, 32, stream, 32 * 4](out, x)
        stream.synchronize()
        return out.copy_to_host()

    got, want = _both(kmods, "dyn_shared", shared)
    np.testing.assert_array_equal(got, want)


def test_forall_and_eager_signatures(kmods):
    from numba import cuda

    x = np.linspace(0, 1, 1000).astype(np.float32)

    def forall(k):
        y = cuda.to_device(np.ones(1000, np.float32))
        k.forall(1000)(y, cuda.to_device(x), np.float32(3), 1000)
        k.forall(1000, tpb=64)(y, cuda.to_device(x), np.float32(3), 1000)
        k.forall(0)(y, cuda.to_device(x), np.float32(3), 1000)
        return y.copy_to_host()

    got, want = _both(kmods, "axpy", forall)
    np.testing.assert_allclose(got, want, rtol=1e-6)

    def eager(k):
        out = cuda.to_device(np.zeros(1000, np.float32))
        k[8, 128](out, cuda.to_device(x), 2)          # an int for the float32 parameter
        return out.copy_to_host()

    got, want = _both(kmods, "eager", eager)
    np.testing.assert_array_equal(got, want)


def test_repeated_launches_take_the_short_path_and_match_numba(kmods):
    from numba import cuda

    from safekern.backends.numba import launch as numba_binary

    a = np.abs(np.random.default_rng(1).standard_normal(256)).astype(np.float32)
    before = dict(numba_binary.STATS)

    def run(k):
        out = cuda.to_device(np.zeros(256, np.float32))
        d = cuda.to_device(a)
        for _ in range(50):
            k[2, 128](out, d)
        return out.copy_to_host()

    got, want = _both(kmods, "square", run)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # One compile (or one cache hit) for 50 launches; launches go through the table.
    assert sum(numba_binary.STATS[k] - before.get(k, 0) for k in ("compile", "hit")) <= 1


class CountingExtension:
    """A numba launch extension that changes nothing: kernels with one stay on numba's path."""

    def __init__(self):
        self.calls = 0

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.calls += 1
        return ty, val


def test_cache_off_and_numba_path_kernels(tmp_path, monkeypatch, no_launch_predicates):
    from numba import cuda

    import safekern

    set_safekern(monkeypatch, CACHE="off")
    mod = _module(tmp_path, "cache_off_mod", SCALE + """
    EXT = []

    def make(ext):
        EXT.append(ext)

        @safekern.jit(extensions=[ext])
        def scale_ext(out, a, s):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[i] * s
        return scale_ext
""")
    ext = CountingExtension()
    scale_ext = mod.make(ext)
    a = np.arange(32, dtype=np.float32)
    for k in (mod.scale, scale_ext):
        out = cuda.to_device(np.zeros(32, np.float32))
        with cuda.gpus[0]:
            k[1, 32](out, cuda.to_device(a), 5.0)
        safekern.sync()
        np.testing.assert_array_equal(out.copy_to_host(), a * 5)
    assert ext.calls > 0           # numba's own launch ran the extension
    assert mod.scale.build.numba is not None and mod.scale._binary is not None
    bad = cuda.to_device(np.zeros(16, np.float32))
    mod.scale[1, 32](bad, cuda.to_device(a[:8]), 1.0)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "a" and info.value.size == 8
