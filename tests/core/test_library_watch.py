"""A checked kernel's failure reaches its user at the sync points of whichever array library
they read results with, not only the kernel's own: numba kernels run on CuPy arrays (and torch
tensors: test_torch_sync.py), CuPy kernels on numba's device arrays. Each backend's hooks watch
the other libraries (backends.watch_libraries): hooked at once when imported, else at the next launch
that makes a device pending. On a stand-in CuPy (tests/support/cupy_stand_in.py: CI has no
CuPy) and a planted failure; numba kernels on real CuPy arrays on a GPU:
tests/numba/test_numba_on_cupy_arrays.py."""
from __future__ import annotations

import sys

import pytest

import safekern
from safekern import runtime, sync_points
from safekern.backends import INSTALLERS, watch_libraries
from safekern.backends.cupy import sync as cupy_sync
from tests.support.cupy_stand_in import make_cupy
from tests.support.planted_source import dev1  # noqa: F401 -- a fixture


@pytest.fixture
def unhooked(monkeypatch, no_pending_failure):
    """No CuPy hooks in, no watch waiting; both put back as they were afterwards."""
    sync_points.uninstall(cupy_sync.BACKEND)
    monkeypatch.setattr(runtime, "_on_pending", [])
    yield
    sync_points.uninstall(cupy_sync.BACKEND)


def test_cupy_imported_after_the_first_kernel_is_hooked_at_the_next_failing_launch(
        monkeypatch, unhooked, dev1):
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    watch_libraries()                       # what a numba kernel's decoration does (on a GPU)
    assert not cupy_sync.install_if_imported()
    assert INSTALLERS["cupy"] in runtime._on_pending
    fake = make_cupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)       # the user imports CuPy
    assert not hasattr(fake.ndarray.get, "__safekern_sync_point__")      # not hooked yet
    dev1.fail()                             # a checked launch on device 1 failed
    assert INSTALLERS["cupy"] not in runtime._on_pending
    assert sorted(sync_points.installed()["cupy"]) == sorted(
        ["ndarray.get", "cupy.asnumpy", "_BaseStream.synchronize", "Device.synchronize",
         "Event.synchronize"])
    with pytest.raises(safekern.BoundsError):
        fake.ndarray([1.0, 2.0]).get()
    assert not runtime.pending_sources()


@pytest.mark.parametrize("read", ["get", "asnumpy", "stream", "device", "event"])
def test_each_cupy_sync_point_raises_a_numba_kernels_failure(monkeypatch, unhooked, dev1,
                                                             read):
    fake = make_cupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    watch_libraries()                       # CuPy imported before the kernel: hooked at once
    assert INSTALLERS["cupy"] not in runtime._on_pending
    calls = {"get": lambda: fake.ndarray([1.0]).get(),
             "asnumpy": lambda: fake.asnumpy(fake.ndarray([1.0])),
             "stream": lambda: fake.cuda.Stream().synchronize(),
             "device": lambda: fake.cuda.Device(1).synchronize(),
             "event": lambda: fake.cuda.Event().synchronize()}
    calls[read]()                           # nothing pending: nothing raised
    dev1.fail()
    with pytest.raises(safekern.BoundsError):
        calls[read]()
    assert fake.ndarray([1.0]).get(blocking=False) == [1.0]     # not a sync point


def test_libraries_watching_each_other_install_once_and_stop(monkeypatch, unhooked):
    """numba's install watches CuPy, whose install watches numba: each installs once."""
    monkeypatch.setitem(sys.modules, "cupy", make_cupy())
    seen = []

    def numba_like():
        seen.append("numba")
        sync_points.watch(cupy_like)
        return True

    def cupy_like():
        seen.append("cupy")
        sync_points.watch(numba_like)
        return True

    sync_points.watch(numba_like)
    assert seen == ["numba", "cupy"]
    assert runtime._on_pending == []
    import numba.cuda  # noqa: F401 -- the user's numba-cuda (the simulator here)

    cupy_sync.install()                     # the real pair: CuPy's install, numba imported
    assert "cupy" in sync_points.installed()
    assert "numba" in sync_points.installed()


def test_a_cupy_kernels_failure_source_answers_numbas_sync_points(monkeypatch):
    """numba's copy_to_host() and synchronize() ask for their context, a numba stream's
    synchronize() for the stream: a CuPy kernel's failure on that device is theirs to raise."""
    from types import SimpleNamespace

    from safekern.backends.cupy import program

    monkeypatch.setitem(sys.modules, "cupy", make_cupy())
    monkeypatch.setattr(program, "_cupy", lambda: sys.modules["cupy"])
    source = object.__new__(program.CupyFailureSource)        # (no device to allocate on)
    source.device_id = 1
    context = SimpleNamespace(device=SimpleNamespace(id=1))    # numba's Context
    stream = SimpleNamespace(context=context)                   # numba's Stream
    elsewhere = SimpleNamespace(device=SimpleNamespace(id=0))
    assert source.matches(context) and source.matches(stream)
    assert not source.matches(elsewhere)
    assert not source.matches(SimpleNamespace(context=elsewhere))
    assert not source.matches(object())
    assert source.matches(1) and not source.matches(0)
