"""Two GPUs in one process: failure state per device, sync() and sync(device), the sync points
per device, one host thread per device, numba's device selection and CuPy's. Marked multigpu:
skipped where fewer than two GPUs are visible (run on the device tool's nvidia-h200-x2)."""
import threading

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import sync_kernels as K

pytestmark = [pytest.mark.multigpu, pytest.mark.gpu, pytest.mark.timeout(300)]


@pytest.fixture(autouse=True)
def _clean_state(no_pending_failure):
    yield
    cuda.select_device(0)


def bad_on(device: int):
    with cuda.gpus[device]:
        d = cuda.to_device(np.zeros(32))
        K.shift_write[1, 32](d)          # thread 31 writes a[32]
    return d


def test_a_failure_on_one_device_leaves_the_other_computing():
    d0 = bad_on(0)
    with cuda.gpus[1]:
        d1 = cuda.to_device(np.zeros(40))
        for _ in range(3):
            K.fill_index[2, 32](d1)
        np.testing.assert_array_equal(d1.copy_to_host(), np.arange(40))   # no raise here
        cuda.synchronize()
    with cuda.gpus[0]:
        later = cuda.to_device(np.zeros(8))
        K.fill_index[1, 32](later)                 # skipped: device 0 has a pending failure
        with pytest.raises(safekern.BoundsError) as info:
            d0.copy_to_host()
    err = info.value
    assert err.device == "CUDA device 0" and err.index == 32
    assert err.skipped_launches == 1
    assert "1 later checked launch skipped" in str(err)


def test_sync_of_one_device_concerns_only_that_device():
    bad_on(0)
    safekern.sync(1)
    safekern.sync(cuda.gpus[1])
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync(0)
    assert info.value.device == "CUDA device 0"
    safekern.sync()


def test_failures_on_both_devices_are_raised_together():
    bad_on(0)
    with cuda.gpus[1]:
        r = np.zeros(4, K.RECORD)
        out = cuda.device_array(4)
        K.record_read[1, 4](cuda.to_device(r), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert len(err.others) == 1
    assert {err.device, err.others[0].device} == {"CUDA device 0", "CUDA device 1"}
    assert {err.kernel, err.others[0].kernel} == {"shift_write", "record_read"}
    assert any("also on CUDA device" in note for note in err.__notes__)
    safekern.sync()                                # both were reset: nothing is left


def test_one_host_thread_per_device():
    seen = {0: [], 1: []}
    start = threading.Barrier(2)

    def work(device):
        with cuda.gpus[device]:
            start.wait()
            for round_ in range(20):
                d = cuda.to_device(np.zeros(64))
                if device == 1 and round_ == 7:
                    K.shift_write[1, 64](d)          # thread 63 writes d[64]
                else:
                    K.fill_index[2, 32](d)
                try:
                    got = d.copy_to_host()
                except safekern.BoundsError as err:
                    seen[device].append((round_, err.device, err.kernel))
                    continue
                np.testing.assert_array_equal(got, np.arange(64))

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    assert seen == {0: [], 1: [(7, "CUDA device 1", "shift_write")]}


def test_select_device():
    cuda.select_device(1)
    d = cuda.to_device(np.zeros(32))
    K.shift_write[1, 32](d)
    cuda.select_device(0)
    cuda.synchronize()                              # device 0: nothing pending there
    cuda.select_device(1)
    with pytest.raises(safekern.BoundsError) as info:
        cuda.synchronize()
    assert info.value.device == "CUDA device 1"


def test_cupy_devices():
    cp = pytest.importorskip("cupy")
    import safekern.cupy as skcp

    code = r'''
    extern "C" __global__ void shift_write(double* a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i + 1] = 1.0;
    }
    '''
    with cp.cuda.Device(1):
        k = skcp.RawKernel(code, "shift_write")
        a = cp.zeros(32)
        k((1,), (32,), (a, np.int32(32)))
    with cp.cuda.Device(0):
        cp.arange(4).get()                          # device 0's sync point: nothing
        cp.cuda.Device(0).synchronize()
    with pytest.raises(safekern.BoundsError) as info:
        cp.cuda.Device(1).synchronize()
    assert info.value.index == 32 and "1" in info.value.device
