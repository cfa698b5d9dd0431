"""Launch variants of CUDA C kernels (CuPy): NVRTC compiles each variant (to PTX and cubin, no GPU
needed) with the checks it leaves out in its cache key; a stand-in `cupy` (test_cuda_c_launch.py)
shows which function each launch runs -- the full variant where every predicate holds, a
partial one, or the checked kernel -- and a real GPU (marker gpu) that a launch breaking a
predicate still reports its failure."""
import re

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern  # noqa: E402
from safekern.backends.cupy import api as backend  # noqa: E402
from safekern.backends.cupy import nvrtc  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.cupy.test_cuda_c_launch import fake_cupy  # noqa: E402,F401  (the fixture)
from tests.support.settings import set_safekern

try:
    nvrtc.version()
except nvrtc.NvrtcUnavailable as err:  # pragma: no cover
    pytest.skip(f"NVRTC not available: {err}", allow_module_level=True)

ARCH = "sm_90"

TILED = r"""
extern "C" __global__ void tiled(const float* a, float* out, int n) {
    __shared__ float tile[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * 16 + ty;
    tile[ty][tx] = (i < n) ? a[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[tx][ty];
}
"""


def codes_of(rw):
    return {e.text: e.code for e in rw.report() if e.status == "proven at launch"}


@pytest.mark.nvrtc
def test_variants_compile_and_are_cached_by_their_subset():
    rw = cuda.rewrite(TILED, filename="tiled.cu", arch=ARCH, launch_predicates=True)
    codes = codes_of(rw)
    assert set(codes) == {"tile[ty]", "tile[ty][tx]", "a[i]", "tile[tx]", "tile[tx][ty]",
                          "out[i]"}
    args = dict(options=backend.compile_options(()), arch=ARCH, cubin=True,
                name_expressions=(), device_fields={"device_name": "test",
                                                     "compute_capability": "90", "driver": 1})
    full = cuda.rewrite(TILED, filename="tiled.cu", arch=ARCH, assume=set(codes.values()))
    part = cuda.rewrite(TILED, filename="tiled.cu", arch=ARCH,
                        assume={codes["a[i]"], codes["out[i]"]})
    assert not re.search(r"__sk_ix(32)?\(", full.source.split("#line")[-1])
    assert len(re.findall(r"__sk_ix(32)?\(", part.source.split("#line")[-1])) == 4
    before = nvrtc.compile_calls()
    binaries = [backend.compile_rewrite(r, **args).binary for r in (rw, full, part)]
    assert nvrtc.compile_calls() == before + 3
    assert all(b.cubin[:4] == b"\x7fELF" for b in binaries)
    assert len(binaries[1].ptx) < len(binaries[2].ptx) < len(binaries[0].ptx)
    backend.compile_rewrite(part, **args)               # the same subset: from the cache
    assert nvrtc.compile_calls() == before + 3


@pytest.mark.nvrtc
def test_launches_pick_their_variant(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(K.GATHER, "gather")
    report = k.check_report()
    assert [e.text for e in report.proven_at_launch] == ["out[i]", "idx[i]"]
    n = 100
    out, src, idx = cp.zeros(n, np.float32), cp.zeros(n, np.float64), cp.zeros(n, np.int32)
    k((4,), (32,), (out, src, idx, np.int32(n)))            # every predicate holds
    variants = k._bound()[4]
    full, = variants.kernels()
    assert len(full.launches) == 1 and not k.kernel.launches
    # out too small: a partial variant (idx[i] still proven), out[i] checked there
    k((4,), (32,), (cp.zeros(50, np.float32), src, idx, np.int32(n)))
    assert len(variants.kernels()) == 2
    partial = [f for f in variants.kernels() if f is not full][0]
    assert len(partial.launches) == 1
    # n past both: the checked kernel
    k((4,), (32,), (out, src, idx, 1000))                   # (a Python int: CuPy's int64)
    assert len(k.kernel.launches) == 1
    # a Python int that fits: the full variant again; a float: checked
    k((4,), (32,), (out, src, idx, 100))
    k((4,), (32,), (out, src, idx, np.float32(100)))
    assert len(full.launches) == 2 and len(k.kernel.launches) == 2
    # block or grid CuPy would reject: checked (CuPy raises, not safekern)
    k((4,), (32, 0), (out, src, idx, np.int32(n)))
    assert len(k.kernel.launches) == 3


@pytest.mark.nvrtc
def test_switched_off(fake_cupy, monkeypatch):
    import safekern.cupy as skcp

    set_safekern(monkeypatch, LAUNCH_PREDICATES="0")
    try:
        cp = fake_cupy
        k = skcp.RawKernel(K.GATHER, "gather", filename="off.cu")
        assert not k.check_report().proven_at_launch
        n = 10
        k((1,), (32,), (cp.zeros(n, np.float32), cp.zeros(n, np.float64),
                        cp.zeros(n, np.int32), np.int32(n)))
        assert k._bound()[4] is None and len(k.kernel.launches) == 1
    finally:
        set_safekern(monkeypatch, LAUNCH_PREDICATES=None)


@pytest.mark.gpu
def test_on_a_gpu_a_broken_predicate_still_reports():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except Exception:
        pytest.skip("no CUDA device")
    import safekern.cupy as skcp

    k = skcp.RawKernel(TILED, "tiled", filename="tiled_gpu.cu")
    n = 64
    out = cp.zeros(n, dtype=cp.float32)
    # Every thread (tx, ty) of a block writes out[i] = a[16 * block + tx]: 16 threads write
    # each element, and which one lands is the GPU's choice -- unless a block's 16 values are
    # the same, as they are here (a[i] = i // 16).
    a = cp.arange(n, dtype=cp.float32) // 16
    k((n // 16,), (16, 16), (a, out, np.int32(n)))          # holds: the user's kernel
    safekern.sync()
    np.testing.assert_array_equal(out.get(), a.get())
    assert k._bound()[5]._kernel is not None               # (a plain launch: nothing pending)
    out.fill(0)
    from tests.support.settings import safekern_setting

    with pytest.MonkeyPatch.context() as mp, \
            safekern_setting(mp, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        k((n // 16,), (16, 16), (a, out, np.int32(n)))      # holds: the full variant
        safekern.sync()
        np.testing.assert_array_equal(out.get(), a.get())
        assert len(k._bound()[4].kernels()) == 1
    small = cp.zeros(40, dtype=cp.float32)
    k((n // 16,), (16, 16), (a, small, np.int32(n)))       # breaks out[i]
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value          # (which of the threads i = 40..63 records first is the GPU's)
    assert (e.array, e.size) == ("out", 40) and 40 <= e.index < 64
    k((n // 16,), (32, 16), (a, out, np.int32(n)))         # blocks wider than the tile
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "tile"
