"""Deferred host check: the failure buffers of every backend, and `sync()`.

Each backend keeps one failure buffer per device (or OpenCL context/device) and wraps it in a
`FailureSource`. A launch marks its source dirty; nothing waits for the device. `sync()`
synchronises the dirty sources, reads their buffers, resets them, and raises the first failure.
`sync_point()` does the same from inside a GPU library's own synchronisation call (see
sync_points.py), unless SAFEKERN_SYNC_POINTS=0.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import threading

from . import config
from ._targets import validate_target
from .errors import for_user
from .failures import BUFFER_LEN, CODE, SKIPPED, exception_from_buffer

log = logging.getLogger("safekern.runtime")


class FailureSource:
    """One failure buffer on one device, as a backend sees it.

    Subclasses implement `synchronize()`, `read()` (returns BUFFER_LEN ints, after
    synchronising) and `reset()`; `matches(target)` says whether `sync(target)` concerns this
    source (a stream, an OpenCL queue or context, a device).
    """

    name = "device"

    def __init__(self):
        self.dirty = False
        self.notes: list[str] = []     # added to the next failure raised from this source

    def mark_launched(self) -> None:
        if not self.dirty:
            self.dirty = True
            _pending_sources_add(self)

    def matches(self, target) -> bool:
        return target is None

    def synchronize(self) -> None:
        raise NotImplementedError

    def read(self) -> list[int]:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError

    def check(self, *, synchronize: bool = True):
        """Synchronise, read, reset; the pending exception or None."""
        if synchronize:
            self.synchronize()
        values = self.read()
        self.dirty = False
        exc = exception_from_buffer(values, source=self.name)
        if exc is not None:
            exc.device = self.name          # "CUDA device 1", "OpenCL device ..."
            for note in self.notes:
                exc.add_note(note)
        self.notes.clear()
        if exc is not None or int(values[SKIPPED]):
            self.reset()
        return exc


_lock = threading.Lock()
_pending: list[FailureSource] = []      # sync_points reads it without the lock: a list test
# One thread at a time reads and resets buffers; re-entered by a library call the check itself
# makes (reading a buffer copies it to the host, which is a sync point too).
_check_lock = threading.RLock()
_checking = threading.local()
_plain_syncs = []   # callables that synchronise a backend when checks are off
# The synchronise functions of backends whose plain launches (a launch that can record nothing
# runs the user's own kernel, backends/c_launch.py) ran since sync() last waited for them.
_plain_launched: set = set()
# CUDA stream captures in progress (their stream handles; backends/capture.py keeps the set): a
# check synchronises the device and copies the buffer back, which a capture forbids (and which
# would end it with cudaErrorStreamCaptureUnsupported), so sync points wait until it ends.
capturing: set = set()
launched_while_capturing: set = set()
capture_probe = None    # backends/capture.py: whether one of those is really still capturing
# Called when a source becomes pending, until they return True: a backend hooks a library the
# user imported after safekern (PyTorch) before its sync points can matter.
_on_pending: list = []


_exit_hook_registered = False


def _pending_sources_add(source: FailureSource) -> None:
    global _exit_hook_registered
    with _lock:
        if source not in _pending:
            _pending.append(source)
        if not _exit_hook_registered:
            # Registered at the first launch, after the backend library registered its own
            # exit handlers: atexit runs last-in first-out, so ours reads the buffers while
            # the device is still there.
            atexit.register(_check_at_exit)
            _exit_hook_registered = True
    if _on_pending:
        _run_on_pending()


def when_pending(fn) -> None:
    """Call `fn()` whenever a failure source becomes pending, until it returns True."""
    with _lock:
        if fn not in _on_pending:
            _on_pending.append(fn)


def _run_on_pending() -> None:
    for fn in list(_on_pending):
        try:
            done = fn()
        except Exception as err:  # noqa: BLE001 -- a hook that fails must not fail the launch
            log.warning("safekern: hooking a library's sync points failed: %s", err)
            done = True
        if done:
            with _lock:
                if fn in _on_pending:
                    _on_pending.remove(fn)


_sources: dict = {}                     # (backend, key) -> FailureSource: the one registry
_sources_lock = threading.RLock()    # (a source's make() may release others)


def failure_source(backend: str, key, make, *, current=None) -> FailureSource:
    """The failure source of `backend` for `key` (a device id, a CUDA context, an OpenCL
    (context, device) pair), made by `make()` the first time. `current(source)` false -- a
    destroyed context whose key was reused -- replaces it with a new one."""
    with _sources_lock:
        source = _sources.get((backend, key))
        if source is None or (current is not None and not current(source)):
            source = _sources[(backend, key)] = make()
        return source


def is_current(backend: str, key, source) -> bool:
    """Whether `source` is still the registry's source for `key` (a backend that remembers the
    source of its last launch checks it so, without asking `failure_source` again)."""
    return _sources.get((backend, key)) is source


def release_sources(backend: str, orphaned) -> int:
    """Forget the sources of `backend` with nothing pending that `orphaned(source)` says the
    user can no longer launch on (an OpenCL context the user dropped: the source's buffer and
    queue would keep it, and its device memory, alive for good). A later launch there makes a
    new source; a launch that already holds a forgotten one still records into it and is
    checked (the pending list holds it). Returns how many were forgotten."""
    with _sources_lock:
        gone = []
        for key, source in list(_sources.items()):
            if key[0] != backend:
                continue
            # (Read without _lock, whose holders may ask for sources: a launch that marks the
            # source dirty meanwhile holds a queue of its context, so it is not orphaned.)
            if not source.dirty and source not in _pending and orphaned(source):
                gone.append(key)
        for key in gone:
            del _sources[key]
        return len(gone)


def failure_sources(backend: str | None = None) -> list[FailureSource]:
    """Every failure source made so far (of one backend)."""
    with _sources_lock:
        return [s for (b, _), s in _sources.items() if backend is None or b == backend]


def register_plain_sync(fn) -> None:
    """A backend's synchronise-everything function, used by sync() when checks are off."""
    if fn not in _plain_syncs:
        _plain_syncs.append(fn)


def plain_launched(fn) -> None:
    """A plain launch ran (it leaves nothing pending): sync() waits for it too, calling the
    backend's synchronise function `fn(target)` (register_plain_sync's)."""
    if fn not in _plain_launched:
        _plain_launched.add(fn)


def sync(target=None) -> None:
    """Synchronise every device/stream/queue that ran checked kernels since the last check,
    raise the pending failure if there is one, and reset the failure state.

    `target` limits the check to one device: None (every device), a device number, a
    numba-cuda Stream, Context or Device (`cuda.gpus[i]`), a CuPy Stream or Device, or a
    PyOpenCL CommandQueue, Context or Device. The failure buffer is per device, so a stream or
    queue stands for its device (every stream on it is synchronised and checked). Anything else is a
    TypeError (a negative device number a ValueError), raised before anything is checked. With
    no failure pending it returns None. While a CUDA stream capture is in progress and a failure
    is pending, a RuntimeError: the check would end the capture.
    """
    validate_target(target)     # TypeError for what no backend understands (safekern/_targets.py)
    if not config.get().checks:
        _wait_for(_plain_syncs, target)
        return None
    if _plain_launched:          # (a plain launch is waited for like a checked one)
        _wait_for(_plain_launched, target)
        if target is None:
            _plain_launched.clear()
    if capturing and _capture_in_progress() and any(s.matches(target)
                                                    for s in pending_sources()):
        raise RuntimeError(
            "safekern.sync() cannot check while a CUDA stream capture is in progress: the "
            "check synchronises the device, which the capture forbids. Call it after "
            "end_capture() (a failure pending now stays pending)")
    failures = _check_sources(target)
    if failures:
        # One exception for all devices: the first found, the others chained to it (its
        # `others`, and a note each), since every buffer read here has been reset.
        first = failures[0]
        first.others = failures[1:]
        for other in first.others:
            first.add_note(f"also on {other.device}: {type(other).__name__}: "
                           f"{str(other).splitlines()[0]} (in kernel {other.kernel!r})")
        __tracebackhide__ = True      # noqa: F841 - pytest and IPython hide this frame
        raise for_user(first)         # the kernel's failure: the message says where
    return None


def _wait_for(syncs, target) -> None:
    """Call each backend's synchronise function; the library synchronisations they make are
    not sync points meanwhile (they would call sync() again, without end)."""
    with _not_sync_points():
        for fn in list(syncs):
            fn(target)


def _check_sources(target) -> list:
    """Check every dirty source `target` concerns; the failures found (each source reset)."""
    if not _pending or getattr(_checking, "active", False):
        return []         # (nothing launched that can fail: no lock, no buffer read)
    with _reading_buffers():
        with _lock:
            sources = [s for s in _pending if s.matches(target)]
        return [exc for exc in map(_check_one, sources) if exc is not None]


@contextlib.contextmanager
def _reading_buffers():
    """One thread at a time reads buffers; the library calls that reading makes (a copy to the
    host) are not sync points meanwhile."""
    with _check_lock, _not_sync_points():
        yield


@contextlib.contextmanager
def _not_sync_points():
    """The library synchronisations safekern itself makes meanwhile are not sync points."""
    outer = getattr(_checking, "active", False)
    _checking.active = True
    try:
        yield
    finally:
        _checking.active = outer


def _check_one(source: FailureSource):
    exc = source.check()
    with _lock:
        if not source.dirty and source in _pending:
            _pending.remove(source)
    return exc


def launch_raised(source: FailureSource, exc: BaseException) -> bool:
    """A launch that runs the kernel on the host (the CUDA simulator) raised `exc`.

    A check may have failed first, and `exc` be what a stand-in value did next (an attribute
    of a stand-in record, a local that a skipped assignment left unbound). On a GPU that thread
    would have gone on quietly, and the failure is the news. Returns True when a failure is
    recorded: the launch then returns as on a GPU, the failure stays pending for the next sync
    point (with `exc` as a note on it). False: no check failed, the caller re-raises `exc`.
    The source is marked launched either way."""
    source.mark_launched()
    with _reading_buffers():
        recorded = int(source.read()[CODE]) != 0
    if recorded:
        source.notes.append(f"after the failure the simulated kernel raised "
                            f"{type(exc).__name__}: {exc}")
    return recorded


def settle(source: FailureSource) -> bool:
    """Wait for `source`'s device and read its buffer without raising: True when nothing was
    recorded (the source is then clean, as after a check); a recorded failure stays pending
    for the next sync point (False). For a launch whose choice of kernel must not depend on
    what ran before it (numba's cache=True: backends/numba/plain.py)."""
    if not source.dirty:
        return True
    if getattr(_checking, "active", False):
        return False
    with _reading_buffers():
        source.synchronize()
        values = source.read()
        if int(values[CODE]) or int(values[SKIPPED]):
            return False
        source.dirty = False
        with _lock:
            if source in _pending:
                _pending.remove(source)
    return True


def sync_point(target=None) -> None:
    """A GPU library's synchronisation call just completed: raise what `sync(target)` would,
    unless SAFEKERN_SYNC_POINTS=0. Cheap when nothing is pending (the hooks test that first)."""
    if not _pending or getattr(_checking, "active", False):
        return
    if capturing and _capture_in_progress():
        return                  # (the failure waits for the first sync point after it)
    cfg = config.get()
    if not (cfg.checks and cfg.sync_points):
        return
    sync(target)


def _capture_in_progress() -> bool:
    return capture_probe() if capture_probe is not None else bool(capturing)


def pending_sources() -> list[FailureSource]:
    with _lock:
        return list(_pending)


def after_launch(source: FailureSource) -> None:
    """Called by a backend after every checked launch."""
    source.mark_launched()
    if capturing:
        # A launch into a capture that the backend did not tell apart (numba's) ran nothing;
        # the graphs being captured keep its source, so their replays mark it pending too.
        launched_while_capturing.add(source)
    elif config.get().sync_every_launch:
        sync(None)


def _check_at_exit() -> None:
    """A failure still pending when the interpreter exits is printed, never lost silently; with
    SAFEKERN_EXIT_ON_PENDING=1 the process then exits with status 1."""
    with _lock:
        sources = list(_pending)
    found = False
    for source in sources:
        try:
            with _reading_buffers():
                exc = source.check()
        except Exception as err:  # the device may already be gone at exit
            log.debug("could not read failure buffer of %s at exit: %s", source.name, err)
            continue
        if exc is not None:
            found = True
            sys.stderr.write(
                "safekern: warning: a kernel failure was still pending at exit "
                "(call safekern.sync() to raise it):\n"
                f"{type(exc).__module__}.{type(exc).__name__}: {exc}\n")
    try:
        exit_on_pending = config.get().exit_on_pending
    except ValueError:
        exit_on_pending = False
    if found and exit_on_pending:
        # atexit ignores SystemExit, so leave with os._exit. The handlers registered before
        # ours (the GPU libraries' teardown) are skipped: the driver releases the device.
        sys.stdout.flush()
        sys.stderr.write("safekern: exiting with status 1 (SAFEKERN_EXIT_ON_PENDING=1)\n")
        sys.stderr.flush()
        os._exit(1)


__all__ = ["FailureSource", "failure_source", "failure_sources", "release_sources", "sync", "sync_point", "after_launch", "launch_raised", "register_plain_sync", "plain_launched", "pending_sources", "when_pending", "capturing",
           "BUFFER_LEN"]
