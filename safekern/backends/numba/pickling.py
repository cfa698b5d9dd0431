"""Pickling of checked kernels, device functions and configured launches, as numba's own.

numba pickles a dispatcher as its Python function and options (through its serialize module:
cloudpickle, so a function defined inside another one travels by value) and compiles it again
where it is unpickled. A checked function does the same: unpickled, it is decorated anew from
its function (the source is found again from the function's file and line; without it, it
becomes numba's own, unchecked, with the UncheckedWarning). A configured launch
(`kernel[grid, block]`) pickles as numba's `_LaunchConfiguration` does: its kernel, grid,
block, stream handle and shared memory, and refuses while it has pre-launch callbacks.
"""
from __future__ import annotations

import pickle


def reduce_function(cls, pyfunc, sigs, options, device, specialized):
    """`__reduce__` of a checked (or unchecked) kernel or device function: unpickled, it is
    `cls._rebuild(**states)` (numba's `serialize.custom_reduce` protocol), which decorates the
    function anew (kernel.py; unchecked.py when its source cannot be found there either)."""
    from numba.cuda import serialize

    return serialize.custom_reduce(cls, {
        "pyfunc": pyfunc, "sigs": sigs, "options": dict(options), "device": bool(device),
        "specialized": bool(specialized)})


def stream_handle(stream):
    """A launch's stream as numba pickles it: the driver handle as an int (0: the default)."""
    if isinstance(stream, int):
        return stream
    from numba.cuda.cudadrv import driver

    return int(driver._to_core_stream(stream).handle)


def reduce_launch(launch):
    if launch.pre_launch_callbacks:
        raise pickle.PicklingError(
            "Cannot pickle configured launches with pre-launch callbacks")
    return rebuild_launch, (launch.kernel, launch.griddim, launch.blockdim,
                            stream_handle(launch.stream), launch.sharedmem)


def rebuild_launch(kernel, griddim, blockdim, stream, sharedmem):
    return kernel[griddim, blockdim, stream, sharedmem]


__all__ = ["reduce_function", "reduce_launch", "rebuild_launch"]
