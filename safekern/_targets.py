"""What `safekern.sync(target)` accepts, checked before anything is synchronised.

A target that no failure source understands would match nothing, and `sync()` would return
silently without checking anything: `safekern.sync("garbage")` or `sync(d_out)` looked like a
successful check. The GPU libraries are not imported here (importing safekern imports none):
their objects are recognised by the module and class names in their type's MRO.
"""
from __future__ import annotations

import numbers

# top-level package of the class's module -> names of the classes (or their bases) that the
# backends' FailureSource.matches understands
_ACCEPTED = {
    # numba-cuda: cuda.stream()/default_stream()/external_stream(), cuda.current_context(),
    # cuda.get_current_device(), cuda.gpus[i]; the CUDA simulator's stand-ins
    "numba": {"Stream", "Context", "Device", "_DeviceContextManager",
              "stream", "FakeCUDAContext", "FakeCUDADevice"},
    # CuPy: cupy.cuda.Stream / ExternalStream (and their bases), cupy.cuda.Device
    "cupy": {"Stream", "ExternalStream", "BaseStream", "_BaseStream", "Device"},
    # PyOpenCL
    "pyopencl": {"CommandQueue", "Context", "Device"},
}
_ACCEPTED["numba_cuda"] = _ACCEPTED["numba"]
_ACCEPTED["cupy_backends"] = _ACCEPTED["cupy"]

ACCEPTED_DESCRIPTION = ("None (everything), a device number, a numba-cuda Stream, Context or "
                        "Device (cuda.gpus[i]), a CuPy Stream or Device, or a PyOpenCL "
                        "CommandQueue, Context or Device")


def _known_gpu_object(target) -> bool:
    for cls in target.__class__.__mro__:   # __class__: a weakref proxy (cuda.gpus[i]) forwards it
        names = _ACCEPTED.get((cls.__module__ or "").split(".")[0])
        if names is not None and cls.__name__ in names:
            return True
    return False


def validate_target(target) -> None:
    """Raise TypeError (ValueError for a negative device number) unless `sync(target)` can
    know which failure buffers `target` means."""
    if target is None:
        return
    if isinstance(target, numbers.Integral) and not isinstance(target, bool):
        if int(target) < 0:
            raise ValueError(f"safekern.sync(target): device number {int(target)} is negative")
        return
    if _known_gpu_object(target):
        return
    kind = type(target)
    text = repr(target)
    if len(text) > 60:
        text = text[:57] + "..."
    raise TypeError(f"safekern.sync(target): target must be {ACCEPTED_DESCRIPTION}; got "
                    f"{kind.__module__}.{kind.__qualname__} {text}")


__all__ = ["validate_target", "ACCEPTED_DESCRIPTION"]
