"""Sync points: the GPU libraries' own synchronisation calls raise pending kernel failures.

A user who swaps `@cuda.jit` for `@safekern.jit` and changes nothing else must still see a
failure. So the calls at which the host already waits for the device (copying results back,
`synchronize()`, `finish()`, waiting for an event) are wrapped: the wrapper runs the library's
own call unchanged and, only when a checked kernel was launched since the last check, then does
what `safekern.sync(target)` does. The work of the call is complete when the failure is raised
(the data it copied is untrusted: it may hold what the failing kernel left).

Each backend describes its hooks as `Hook`s and installs them when it is first used. Installing
is idempotent and thread-safe; `uninstall()` puts every original back. With
SAFEKERN_SYNC_POINTS=0 (or SAFEKERN_CHECKS=0) nothing is installed. When nothing is pending a
hooked call costs one extra Python call and one list test.
"""
from __future__ import annotations

import ctypes
import functools
import gc
import threading
from dataclasses import dataclass
from typing import Callable

from . import config, runtime
from .errors import SafekernError, for_user

#: What a `Hook.target` returns for a call that does not wait for the device (an asynchronous
#: copy on a stream, a non-blocking enqueue): no check there.
NOT_A_SYNC_POINT = object()


@dataclass(frozen=True)
class Hook:
    """Wrap `owner.attr` (a class or module attribute) as a sync point.

    `target(args, kwargs)` turns the call's arguments into what `sync(target)` takes (a stream,
    a queue, a device; None: every device), or NOT_A_SYNC_POINT.
    """

    owner: object
    attr: str
    target: Callable = staticmethod(lambda args, kwargs: None)
    #: For a hook that is not a sync point (a CUDA graph's replay marks the devices of its
    #: captured kernels pending, backends/capture.py): `wrap(original)` makes the wrapper.
    #: A set of such hooks is installed whenever checks are on, SAFEKERN_SYNC_POINTS=0 or not.
    wrap: Callable | None = None

    @property
    def label(self) -> str:
        owner = getattr(self.owner, "__qualname__", getattr(self.owner, "__name__", "?"))
        return f"{owner}.{self.attr}"


_lock = threading.Lock()
# backend -> [(owner, attr, original, wrapper, owned)]; owned: the attribute was owner's own
# (put back on uninstall) rather than inherited (deleted again, so inheritance resumes).
_installed: dict[str, list[tuple[object, str, object, object, bool]]] = {}
_MARK = "__safekern_sync_point__"


def _current(owner, attr):
    """(what `owner.attr` is now, whether owner defines it itself). A method a class inherits
    from an extension base (cupy.ndarray.get, defined by the Cython _ndarray_base) is wrapped
    on the class itself."""
    if isinstance(owner, type):
        own = owner.__dict__.get(attr)
        return (own, True) if own is not None else (getattr(owner, attr, None), False)
    return getattr(owner, attr, None), True


def _set(owner, attr, value) -> None:
    """setattr, also on an extension type that refuses it (a Cython cdef class such as
    cupy.cuda.Device): its attributes live in the type's own dict, which is changed directly and
    announced with PyType_Modified, as CPython's type_setattro does for a plain class."""
    try:
        setattr(owner, attr, value)
    except TypeError:
        _type_dict(owner, attr)[attr] = value
        _type_modified(owner)


def _delete(owner, attr) -> None:
    try:
        delattr(owner, attr)
    except TypeError:
        del _type_dict(owner, attr)[attr]
        _type_modified(owner)


def _type_modified(owner) -> None:
    # A prototype of our own (void PyType_Modified(PyTypeObject *)): ctypes.pythonapi's
    # function object is shared with the rest of the process.
    ctypes.PYFUNCTYPE(None, ctypes.py_object)(("PyType_Modified", ctypes.pythonapi))(owner)


def _type_dict(owner, attr) -> dict:
    if not isinstance(owner, type) or (attr.startswith("__") and attr.endswith("__")):
        # Special methods of extension types live in C slots as well; not ours to patch.
        raise TypeError(f"cannot wrap {owner!r}.{attr} as a sync point")
    found = [d for d in gc.get_referents(owner.__dict__) if isinstance(d, dict)]
    if len(found) != 1:
        raise TypeError(f"cannot reach the attributes of {owner!r} to wrap {attr}")
    return found[0]


def _wrap(original, hook: Hook):
    if hook.wrap is not None:
        wrapper = hook.wrap(original)
        functools.update_wrapper(wrapper, original)
        setattr(wrapper, _MARK, original)
        return wrapper
    target = hook.target
    pending = runtime._pending      # the list itself: rebinding never happens

    @functools.wraps(original)
    def sync_point(*args, **kwargs):
        __tracebackhide__ = True      # noqa: F841 - pytest and IPython hide this frame
        result = original(*args, **kwargs)
        if pending:
            where = target(args, kwargs)
            if where is not NOT_A_SYNC_POINT:
                try:
                    runtime.sync_point(where)
                except SafekernError as exc:
                    raise for_user(exc)   # a kernel's failure: the message says where
        return result

    setattr(sync_point, _MARK, original)
    return sync_point


def install(backend: str, hooks) -> bool:
    """Wrap each hook's attribute (once per backend); False if sync points are off (for hooks
    that all have a `wrap`: if checks are off)."""
    hooks = list(hooks)
    cfg = config.get()
    if not cfg.checks or not (cfg.sync_points or all(h.wrap is not None for h in hooks)):
        return False
    with _lock:
        if backend in _installed:
            return True
        done = []
        _installed[backend] = done
        try:
            for hook in hooks:
                current, owned = _current(hook.owner, hook.attr)
                if current is None or hasattr(current, _MARK):
                    continue
                wrapped = _wrap(current, hook)
                _set(hook.owner, hook.attr, wrapped)
                done.append((hook.owner, hook.attr, current, wrapped, owned))
        except BaseException:
            _restore(backend)           # all or nothing
            raise
        return True


_watching = threading.local()


def watch(install_if_imported) -> None:
    """`install_if_imported()` now, and again each time a checked launch makes a device pending
    until it returns True: a library the user imports after decorating kernels is hooked before
    a failure of theirs can wait at its sync points (numba kernels on CuPy arrays or torch
    tensors, CuPy kernels on numba's arrays or torch's). Libraries watch each other (numba's
    install watches CuPy's, whose install watches numba's): a watch already running on this
    thread is not started again."""
    running = _watching.__dict__.setdefault("running", set())
    if install_if_imported in running:
        return
    running.add(install_if_imported)
    try:
        if not install_if_imported():
            runtime.when_pending(install_if_imported)
    finally:
        running.discard(install_if_imported)


def is_installed(backend: str) -> bool:
    """Whether `backend`'s hooks are in (a dict lookup: backends ask at every decoration)."""
    return backend in _installed


def uninstall(backend: str | None = None) -> None:
    """Put the libraries' originals back (one backend's, or every backend's)."""
    with _lock:
        for name in [backend] if backend is not None else list(_installed):
            _restore(name)


def _restore(backend: str) -> None:
    for owner, attr, original, wrapped, owned in reversed(_installed.pop(backend, [])):
        if _current(owner, attr)[0] is not wrapped:
            continue                        # somebody wrapped it again on top of ours
        if owned:
            _set(owner, attr, original)
        else:
            _delete(owner, attr)


def installed() -> dict[str, list[str]]:
    """Which calls are sync points now, per backend (for docs, tests and troubleshooting)."""
    with _lock:
        return {name: [f"{getattr(o, '__qualname__', getattr(o, '__name__', '?'))}.{a}"
                       for o, a, *_ in hooks] for name, hooks in _installed.items()}


__all__ = ["Hook", "NOT_A_SYNC_POINT", "install", "uninstall", "installed", "is_installed",
           "watch"]
