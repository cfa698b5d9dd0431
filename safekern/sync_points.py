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

import functools
import threading
from dataclasses import dataclass
from typing import Callable

from . import config, runtime

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

    @property
    def label(self) -> str:
        owner = getattr(self.owner, "__qualname__", getattr(self.owner, "__name__", "?"))
        return f"{owner}.{self.attr}"


_lock = threading.Lock()
_installed: dict[str, list[tuple[object, str, object, object]]] = {}
_MARK = "__safekern_sync_point__"


def _wrap(original, hook: Hook):
    target = hook.target
    pending = runtime._pending      # the list itself: rebinding never happens

    @functools.wraps(original)
    def sync_point(*args, **kwargs):
        result = original(*args, **kwargs)
        if pending:
            where = target(args, kwargs)
            if where is not NOT_A_SYNC_POINT:
                runtime.sync_point(where)
        return result

    setattr(sync_point, _MARK, original)
    return sync_point


def install(backend: str, hooks) -> bool:
    """Wrap each hook's attribute (once per backend); False if sync points are off."""
    cfg = config.get()
    if not (cfg.checks and cfg.sync_points):
        return False
    with _lock:
        if backend in _installed:
            return True
        done = []
        for hook in hooks:
            current = hook.owner.__dict__.get(hook.attr) if isinstance(hook.owner, type) \
                else getattr(hook.owner, hook.attr, None)
            if current is None or hasattr(current, _MARK):
                continue
            wrapped = _wrap(current, hook)
            setattr(hook.owner, hook.attr, wrapped)
            done.append((hook.owner, hook.attr, current, wrapped))
        _installed[backend] = done
        return True


def is_installed(backend: str) -> bool:
    """Whether `backend`'s hooks are in (a dict lookup: backends ask at every decoration)."""
    return backend in _installed


def uninstall(backend: str | None = None) -> None:
    """Put the libraries' originals back (one backend's, or every backend's)."""
    with _lock:
        names = [backend] if backend is not None else list(_installed)
        for name in names:
            for owner, attr, original, wrapped in reversed(_installed.pop(name, [])):
                current = owner.__dict__.get(attr) if isinstance(owner, type) \
                    else getattr(owner, attr, None)
                if current is wrapped:      # nobody wrapped it again on top of ours
                    setattr(owner, attr, original)


def installed() -> dict[str, list[str]]:
    """Which calls are sync points now, per backend (for docs, tests and troubleshooting)."""
    with _lock:
        return {name: [f"{getattr(o, '__qualname__', getattr(o, '__name__', '?'))}.{a}"
                       for o, a, _, _ in hooks] for name, hooks in _installed.items()}


__all__ = ["Hook", "NOT_A_SYNC_POINT", "install", "uninstall", "installed", "is_installed"]
