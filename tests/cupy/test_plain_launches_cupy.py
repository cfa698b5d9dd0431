"""Plain launches of CUDA C kernels (backends/c_launch.py PlainLaunch): a launch whose every
check is proven -- statically or by the launch predicates that hold -- while nothing is pending
runs the user's own kernel, compiled from the unmodified source: the user's arguments only, no
hidden size, no failure buffer. The stand-in `cupy` of test_cuda_c_launch.py records which
function each launch runs; NVRTC and the kernel cache are the real ones."""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern  # noqa: E402
from safekern import runtime  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.cupy.test_cuda_c_launch import FakeCupy, fake_cupy  # noqa: E402,F401
from tests.cupy.test_launch_variants_cupy import TILED  # noqa: E402
from tests.support.settings import safekern_setting  # noqa: E402

pytestmark = pytest.mark.nvrtc

#: no check at all (a kernel that only synchronises its block)
STATIC = r"""
extern "C" __global__ void fill(float* out, int n) {
    if (n > 0) __syncthreads();
}
"""

ASSERTS = r"""
extern "C" __global__ void fill(float* out, int n) {
    __shared__ float t[32];
    assert(n > 0);
    t[threadIdx.x % 32] = 1.0f;
}
"""


def _tiled_args(cp, n=32):
    return (cp.zeros(n, np.float32), cp.zeros(n, np.float32), np.int32(n))


def test_a_launch_whose_predicates_prove_every_check_runs_the_users_kernel(fake_cupy,
                                                                          monkeypatch):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(TILED, "tiled", filename="plain_tiled.cu")
    args = _tiled_args(cp)
    k((2,), (16, 16), args)
    (name, passed), = FakeCupy.launches
    assert name == "tiled" and passed == args          # the user's arguments only
    assert not k.kernel.launches                       # not the checked kernel
    assert not k._bound()[4].kernels()                 # no variant was needed
    own = k._program.loaded(checks=False)
    assert "__sk_" not in own.rewrite.source           # compiled from the user's source
    assert own.module is not k._bound()[0].module
    assert not k._bound()[0].source.dirty              # it can record nothing
    # ... and safekern.sync() still waits for it (as for a checked launch)
    synced = []
    monkeypatch.setattr(cp.cuda.Device, "synchronize", lambda dev: synced.append(dev.id))
    k((2,), (16, 16), args)
    safekern.sync()
    assert synced == [0] and not runtime._plain_launched
    safekern.sync()
    assert synced == [0]                                # nothing launched since


def test_sync_waits_for_plain_launches_on_their_devices_only(fake_cupy, monkeypatch):
    """safekern.sync() after plain launches waits on the devices that ran one, not on every
    device: a device-wide wait on an idle device is host time in the user's sync (the CuPy
    benchmark's ~0.1 ms a repetition on a two-GPU machine, 2026-11-28d)."""
    import safekern.cupy as skcp

    cp = fake_cupy
    monkeypatch.setattr(cp.cuda.runtime, "getDeviceCount", lambda: 4)
    device = [2]
    monkeypatch.setattr(cp.cuda.runtime, "getDevice", lambda: device[0])
    synced = []
    monkeypatch.setattr(cp.cuda.Device, "synchronize", lambda dev: synced.append(dev.id))
    k = skcp.RawKernel(STATIC, "fill", filename="plain_devices.cu")
    args = (cp.zeros(4, np.float32), np.int32(4))
    k((1,), (64,), args)
    safekern.sync()
    assert synced == [2]
    k((1,), (64,), args)
    device[0] = 3
    k((1,), (64,), args)
    safekern.sync(3)                       # a device number: that device only
    assert synced == [2, 3]
    safekern.sync()                        # device 2's launch is still to wait for
    assert synced == [2, 3, 2]
    safekern.sync()
    assert synced == [2, 3, 2]

def test_a_kernel_with_no_check_runs_plain_without_predicates(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(STATIC, "fill", filename="plain_static.cu")
    assert k._bound()[2].codes == frozenset()
    args = (cp.zeros(4, np.float32), np.int32(4))
    k((1,), (64,), args)
    assert FakeCupy.launches == [("fill", args)]


def test_pending_failures_keep_the_prelude(fake_cupy):
    """A launch that can fail leaves its source dirty: the next launch must test for a pending
    failure (the prelude), so it runs the variant; after sync() the user's kernel again."""
    import safekern.cupy as skcp

    cp = fake_cupy
    gather = skcp.RawKernel(K.GATHER, "gather", filename="plain_gather.cu")
    k = skcp.RawKernel(TILED, "tiled", filename="plain_tiled2.cu")
    n = 8
    gather((1,), (32,), (cp.zeros(n, np.float32), cp.zeros(n, np.float32),
                         cp.zeros(n, np.int32), np.int32(n)))   # src[idx[i]]: may fail
    assert gather._bound()[0].source.dirty
    k((2,), (16, 16), _tiled_args(cp))
    full, = k._bound()[4].kernels()
    assert len(full.launches) == 1 and len(FakeCupy.launches[-1][1]) == 3 + 2 + 1
    safekern.sync()
    k((2,), (16, 16), _tiled_args(cp))
    assert len(full.launches) == 1 and len(FakeCupy.launches[-1][1]) == 3


def test_a_launch_breaking_a_predicate_stays_checked(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(TILED, "tiled", filename="plain_tiled3.cu")
    k((2,), (16, 16), (cp.zeros(8, np.float32), cp.zeros(32, np.float32), np.int32(32)))
    assert len(FakeCupy.launches[-1][1]) == 3 + 2 + 1      # with the sizes and the buffer


def test_asserts_capture_and_the_switch_keep_launches_checked(fake_cupy, monkeypatch):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(ASSERTS, "fill", filename="plain_assert.cu")
    assert k._bound()[2].codes is None and k._bound()[5] is None     # an assert: never
    with safekern_setting(monkeypatch, "SAFEKERN_KERNEL_ASSERTS", "0"):
        # compiled away in safekern's kernel, kept in the user's: still never plain
        assert k._bound()[5] is None
    t = skcp.RawKernel(TILED, "tiled", filename="plain_tiled4.cu")
    from safekern.backends.cupy import graphs

    monkeypatch.setattr(runtime, "capturing", {1})
    monkeypatch.setattr(graphs, "after_launch", lambda source, stream: None)   # (stand-in)
    t((2,), (16, 16), _tiled_args(cp))          # a captured launch may replay when dirty
    assert len(FakeCupy.launches[-1][1]) == 6
    monkeypatch.setattr(runtime, "capturing", set())
    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        t((2,), (16, 16), _tiled_args(cp))
        assert t._bound()[5] is None and len(FakeCupy.launches[-1][1]) == 6
