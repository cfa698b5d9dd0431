"""PyOpenCL's synchronisation points, as safekern sync points (see safekern/sync_points.py).

Wrapped when the first checked OpenCL program is built (`install()`):
- `CommandQueue.finish()`                          that queue (also `with queue:` at its end)
- `pyopencl.enqueue_copy(queue, dest, src, ...)`   that queue, when the copy blocks and writes
                                                   host (or SVM) memory
- `pyopencl.array.Array.get()`                     the queue it copies on
- `Event.wait()` (NannyEvent too)                  the event's queue
- `pyopencl.wait_for_events(events)`               the events' context (not when
                                                   `Array.add_event` prunes its event list)

A non-blocking copy (`is_blocking=False`, `Array.get_async()`) does not wait and raises nothing;
the `finish()`, `wait()` or blocking copy that completes it does. Device-to-device copies and
copies from the host do not wait for the kernels' results and raise nothing either.

Each call is wrapped on the class or module PyOpenCL defines it in, so `cl.enqueue_copy` and
PyOpenCL's own callers (Array.get copies through `cl.enqueue_copy`) see the wrapper; a reference
taken before the first checked build (`from pyopencl import enqueue_copy`) keeps the original.
"""
from __future__ import annotations

import sys

import pyopencl as cl
import pyopencl.array as cla

from ... import sync_points
from ...sync_points import NOT_A_SYNC_POINT, Hook

BACKEND = "opencl"


def _own_queue(args, kwargs):
    return args[0]


def _blocking_copy_to_host(args, kwargs):
    """enqueue_copy(queue, dest, src, *, is_blocking=True, ...): only a copy into host memory
    waits for what the queue ran (a device destination is written on the device)."""
    queue = args[0] if args else kwargs.get("queue")
    dest = args[1] if len(args) > 1 else kwargs.get("dest")
    if not kwargs.get("is_blocking", True) or isinstance(dest, cl.MemoryObjectHolder):
        return NOT_A_SYNC_POINT
    return queue


def _array_get_queue(args, kwargs):
    """Array.get(queue=None, ary=None) copies on `queue` or the array's own; older PyOpenCL
    also took async_ (and async), which does not wait."""
    if kwargs.get("async_") or kwargs.get("async"):
        return NOT_A_SYNC_POINT
    queue = args[1] if len(args) > 1 else kwargs.get("queue")
    return queue if queue is not None else args[0].queue


def _event_queue(args, kwargs):
    event = args[0]
    try:
        queue = event.command_queue
    except cl.Error:        # a user event belongs to no queue
        queue = None
    return queue if queue is not None else event.context


# pyopencl.array.Array.add_event waits for its oldest events when it holds more than twelve:
# PyOpenCL's bookkeeping, not the user's sync point. Reading the failure buffer there (a copy
# that waits for the whole queue) made every fourth launch with Array arguments wait for the
# device (66 us a launch against PyOpenCL's 23 on the H200).
_ARRAY_BOOKKEEPING = getattr(cla.Array.add_event, "__code__", None)


def _events_context(args, kwargs):
    """wait_for_events(events): OpenCL requires the events of one call to share a context."""
    caller = sys._getframe(2)           # (1: the sync point's wrapper, 2: who called it)
    if caller.f_code is _ARRAY_BOOKKEEPING:
        return NOT_A_SYNC_POINT
    events = args[0] if args else ()
    if not isinstance(events, (list, tuple)):
        return None         # an iterator, which the call used up: check every context
    return events[0].context if events else NOT_A_SYNC_POINT


def hooks() -> list[Hook]:
    return [Hook(cl.CommandQueue, "finish", _own_queue),
            Hook(cl, "enqueue_copy", _blocking_copy_to_host),
            Hook(cla.Array, "get", _array_get_queue),
            Hook(cl.Event, "wait", _event_queue),
            Hook(cl, "wait_for_events", _events_context)]


def install() -> None:
    """Wrap PyOpenCL's sync points (once; nothing with SAFEKERN_SYNC_POINTS=0)."""
    if not sync_points.is_installed(BACKEND):
        sync_points.install(BACKEND, hooks())


__all__ = ["install", "hooks", "BACKEND"]
